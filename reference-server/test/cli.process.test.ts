import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { startServerProcess } from '../../tools/test-support/server-process.ts';
import { activeWalksOf, datasetFor, rawRequest } from './harness.ts';
import { CONTRACT_NAMES, parseDotenv } from './dotenv-lines.ts';
import { expectNoSecret, requestsWith, secrets } from './key-forms.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command in the repository, killed 5 s after a SIGTERM it did not heed. */
function spawnCli(command: string, args: string[], buffer = true) {
  return execa(command, args, {
    cwd: ROOT,
    stdin: 'ignore',
    env: { NO_COLOR: '1' },
    buffer,
    stripFinalNewline: false,
    reject: false,
    forceKillAfterDelay: 5_000,
  });
}

async function run(command: string, args: string[]): Promise<Run> {
  const { exitCode, stdout, stderr } = await spawnCli(command, args);
  return { code: exitCode ?? null, stdout, stderr };
}

describe('reference-server command line (../shared/CONTRACT.md)', () => {
  it('`npm run --silent reference-server -- --print-credentials` prints exactly the six dotenv lines', async () => {
    const { code, stdout } = await run('npm', [
      'run',
      '--silent',
      'reference-server',
      '--',
      '--print-credentials',
    ]);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((line) => line.split('=')[0])).toEqual(CONTRACT_NAMES);
    const values = parseDotenv(stdout);
    const keys = demoCredentials();
    for (const [name, key] of Object.entries(keys)) {
      expect(values.get(name) === key).toBe(true);
      expect(key.startsWith(KEY_PREFIX) && key.length >= KEY_PREFIX.length + 32).toBe(true);
    }
    expect(values.get('CONFORMANCE_WEB_BASE_URL')).toBe('https://dashboard.canvassing.example');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '`npm run reference-server` serves the demo data and stops cleanly on %s',
    async (signal) => {
      // The signal goes to npm itself, as a supervisor would send it; it must reach the server.
      const child = spawnCli('npm', ['run', '--silent', 'reference-server', '--', '--port', '0'], false);
      try {
        let stdout = '';
        child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        const url = await new Promise<string>((resolve, reject) => {
          const onData = () => {
            const line = stdout.split('\n').find((candidate) => candidate.includes('"listening"'));
            if (line) resolve((JSON.parse(line) as { url: string }).url);
          };
          child.stdout?.on('data', onData);
          child.once('exit', () => reject(new Error(`exited before listening: ${stdout}`)));
        });
        const answer = await fetch(`${url}/api/v1/walks?limit=200`, {
          headers: { authorization: `Bearer ${demoCredentials().CONFORMANCE_API_KEY}` },
        });
        expect(answer.status).toBe(200);
        expect(((await answer.json()) as { data: unknown[] }).data).toHaveLength(200);
        const exited = once(child, 'exit');
        child.kill(signal);
        const [code] = (await exited) as [number | null];
        expect(code).toBe(0);
        const messages = stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { msg: string }).msg);
        expect(messages).toEqual(['listening', 'request completed', 'shutting down', 'stopped']);
      } finally {
        child.kill();
        await child;
      }
    },
  );
});

describe('npm run reference-server -- --rate-limit N/min', () => {
  it('limits each key to N requests a minute', async () => {
    const limited = startServerProcess(['--port', '0', '--quiet', '--rate-limit', '2/min']);
    try {
      const port = Number(new URL(await limited.listening()).port);
      const key = { authorization: `Bearer ${demoCredentials().CONFORMANCE_API_KEY}` };
      const statuses: number[] = [];
      let retryAfter: string | string[] | undefined;
      for (let i = 0; i < 3; i++) {
        const answer = await rawRequest(port, 'GET', '/api/v1/walks?limit=1', key);
        statuses.push(answer.status);
        retryAfter = answer.headers['retry-after'];
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(String(retryAfter)).toMatch(/^[1-9][0-9]?$/);
    } finally {
      await limited.stop();
    }
  }, 60_000);
});

describe('keys in the log of `npm run reference-server`', () => {
  it('a run that used every demo key in both headers prints none of them', async () => {
    const server = startServerProcess(['--port', '0', '--rate-limit', '5/min']);
    try {
      const baseUrl = await server.listening();
      const port = Number(new URL(baseUrl).port);
      const walkId = activeWalksOf(datasetFor(), 0)[0]?.id ?? '';
      for (const key of secrets) {
        for (const { method, path, headers, body } of requestsWith(key, walkId)) {
          await rawRequest(port, method, path, headers, body);
        }
      }
    } finally {
      await server.stop();
    }
    const text = server.output();
    const lines = text.trim().split('\n');
    const requestLines = lines.filter((line) => line.includes('"responseTime":'));
    expect(requestLines.length).toBe(secrets.length * 13);
    expect(text).toContain('"statusCode":429');
    expect(text).toContain('"msg":"stopped"');
    expectNoSecret(text);
  }, 60_000);
});
