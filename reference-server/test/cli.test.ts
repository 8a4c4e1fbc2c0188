import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { KEY_PREFIX } from '../../spec/facts.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONTRACT_NAMES = [
  'CONFORMANCE_API_KEY',
  'CONFORMANCE_NO_SCOPE_KEY',
  'CONFORMANCE_OTHER_CAMPAIGN_KEY',
  'CONFORMANCE_REVOKED_KEY',
  'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
  'CONFORMANCE_WEB_BASE_URL',
];

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

/** What `npm run reference-server` runs: the launcher, which serves `main.ts` from its bundle. */
const main = (...args: string[]) => run(process.execPath, ['reference-server/launch.js', ...args]);

function parseDotenv(text: string): Map<string, string> {
  return new Map(
    text
      .trimEnd()
      .split('\n')
      .map(
        (line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as [string, string],
      ),
  );
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

  it('--seed changes the keys to that seed’s, and --web-base-url the base line', async () => {
    const { code, stdout } = await main(
      '--print-credentials',
      '--seed',
      '7',
      '--web-base-url',
      'https://x.example/',
    );
    expect(code).toBe(0);
    const values = parseDotenv(stdout);
    expect([...values.keys()]).toEqual(CONTRACT_NAMES);
    const seven = demoCredentials({ seed: 7 });
    const standard = demoCredentials();
    for (const [name, key] of Object.entries(seven)) {
      expect(values.get(name) === key).toBe(true);
      expect(key === standard[name as keyof typeof standard]).toBe(false);
    }
    expect(values.get('CONFORMANCE_WEB_BASE_URL')).toBe('https://x.example');
  });

  it('--help describes every flag and exits 0', async () => {
    const { code, stdout } = await main('--help');
    expect(code).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--walks',
      '--max-stops',
      '--web-base-url',
      '--print-credentials',
      '--variant',
      '--print-variant',
      '--latency',
      '--faults',
      '--fault-kinds',
      '--fault-seed',
      '--clock',
      '--clock-rate',
    ]) {
      expect(stdout).toContain(flag);
    }
  });

  it('--variant list prints the choices of seeds 1 to 8; --variant N --print-variant one of them', async () => {
    const listed = await main('--variant', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout.match(/^variant \d+:$/gm)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `variant ${n}:`),
    );
    const one = await main('--variant', '3', '--print-variant');
    expect(one.code).toBe(0);
    const block = listed.stdout.split('\n\n')[2];
    expect(one.stdout).toBe(`${block?.trimEnd()}\n`);
    expect(one.stdout).toMatch(/^ {2}missingKey +\d{3} [a-z_]+/m);
  });

  it('refuses a bad flag with exit status 2 and a message on stderr only', async () => {
    for (const args of [
      ['--port', 'eighty'],
      ['--walks', '-1'],
      ['--frobnicate'],
      ['--web-base-url', 'ftp://x'],
      ['--web-base-url', 'http://[::1]:3000'],
      ['--web-base-url', 'https://x.example/1/2/3/4/5/6/7/8/9'],
      ['--variant', '0'],
      ['--print-variant'],
      ['--latency', '300-100'],
      ['--faults', '1.5'],
      ['--faults', '0.1', '--fault-kinds', '404'],
      ['--fault-kinds', '500'],
      ['--clock-rate', '60'],
      ['--clock', '--clock-rate', '0'],
      ['--clock', '--clock-rate', 'fast'],
    ]) {
      const { code, stdout, stderr } = await main(...args);
      expect([args.join(' '), code]).toEqual([args.join(' '), 2]);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^reference-server: /);
    }
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
