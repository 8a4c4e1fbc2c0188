/**
 * The contract as the sandbox serves it, loaded by the generators partners and API teams reach for:
 * @hey-api/openapi-ts and orval (from the served URL, as a partner points them), and
 * openapi-to-postmanv2. Each must load it without a warning and aim what it makes at the server it
 * came from, not at the sandbox's default port. Orval needs Node 22.18 or later, above the
 * repository's floor: it comes from its own folder (tools/client-generators), installed and run
 * with the official Node 22 build.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { installOfficialNodes, OFFICIAL_NODES } from '../../tools/test-support/official-nodes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const GENERATORS = join(ROOT, 'tools', 'client-generators');
const NODE_22 = OFFICIAL_NODES['node 22'] as string;
const dir = mkdtempSync(join(tmpdir(), 'client-generators-'));
let server: RunningServer;

beforeAll(async () => {
  server = await startReferenceServer({ log: false });
  await installOfficialNodes();
  // npm runs on Node 22 (first on the path), so the engines it checks are Node 22's.
  await promisify(execFile)(
    'npm',
    ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', GENERATORS],
    {
      env: { ...process.env, PATH: `${dirname(NODE_22)}${delimiter}${process.env.PATH ?? ''}` },
      timeout: 300_000,
    },
  );
}, 600_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function generate(command: string, args: string[], node?: string): Promise<string> {
  const [file, argv] = node ? [node, [command, ...args]] : [join(BIN, command), args];
  const { stdout, stderr } = await promisify(execFile)(file, argv, {
    cwd: dir,
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return `${stdout}${stderr}`;
}

/** Lines a tool prints that warn or fail: what a partner would have to work around. */
const complaints = (output: string) =>
  output.split('\n').filter((line) => /warn|error|fail|⚠|✖|❌/i.test(line));

describe('client generators on the served contract', { timeout: 120_000 }, () => {
  it('@hey-api/openapi-ts makes a client aimed at this server, without a warning', async () => {
    const output = await generate('openapi-ts', ['-i', `${server.baseUrl}/openapi.json`, '-o', 'hey-api']);
    expect(complaints(output)).toEqual([]);
    const client = readFileSync(join(dir, 'hey-api', 'client.gen.ts'), 'utf8');
    expect(client).toContain(`baseUrl: '${server.baseUrl}'`);
    expect(readFileSync(join(dir, 'hey-api', 'sdk.gen.ts'), 'utf8')).toContain('/api/v1/walks/{id}');
  });

  it('orval makes a fetch client aimed at this server, without a warning', async () => {
    const config = {
      walks: {
        input: { target: `${server.baseUrl}/openapi.yaml` },
        output: {
          target: join(dir, 'orval', 'client.ts'),
          client: 'fetch',
          baseUrl: { getBaseUrlFromSpecification: true },
        },
      },
    };
    writeFileSync(join(dir, 'orval.config.mjs'), `export default ${JSON.stringify(config)};\n`);
    const orval = join(GENERATORS, 'node_modules', 'orval', 'dist', 'bin', 'orval.mjs');
    const output = await generate(orval, ['--config', 'orval.config.mjs'], NODE_22);
    expect(complaints(output)).toEqual([]);
    expect(readFileSync(join(dir, 'orval', 'client.ts'), 'utf8')).toContain(
      `\`${server.baseUrl}/api/v1/walks/\${id}\``,
    );
  });

  it('openapi-to-postmanv2 converts it, its base URL this server', async () => {
    const spec = await (await fetch(`${server.baseUrl}/openapi.yaml`)).text();
    const converter = createRequire(import.meta.url)('openapi-to-postmanv2') as {
      convert: (
        input: { type: 'string'; data: string },
        options: object,
        done: (
          error: Error | null,
          result: { result: boolean; reason?: string; output?: Array<{ data: Collection }> },
        ) => void,
      ) => void;
    };
    interface Collection {
      variable?: Array<{ key: string; value: string }>;
      item: unknown[];
    }
    const converted = await new Promise<{
      result: boolean;
      reason?: string;
      output?: Array<{ data: Collection }>;
    }>((resolve, reject) =>
      converter.convert({ type: 'string', data: spec }, {}, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
    expect([converted.result, converted.reason]).toEqual([true, undefined]);
    const collection = converted.output?.[0]?.data;
    expect(collection?.variable?.find((v) => v.key === 'baseUrl')?.value).toBe(server.baseUrl);
    expect(collection?.item.length).toBeGreaterThan(0);
  });
});
