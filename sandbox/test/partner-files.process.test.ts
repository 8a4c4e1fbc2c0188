/**
 * The files partners import, as a partner uses them: the Postman collection and environment the
 * sandbox serves, run with newman against the sandbox and against its mock (every assertion must
 * pass, at least one per request), and the `.http` file's requests sent as an HTTP client would
 * send them, each getting the status its title says.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../command-line/free-port.ts';
import { type Launched, killGroup, launch } from '../../tools/test-support/child-launcher.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { variantOf } from '../../reference-server/variants/variant.ts';

/** The little of newman's run summary read here (newman ships no types). */
interface NewmanSummary {
  run: {
    failures: Array<{ error: { message: string; test?: string }; source?: { name?: string } }>;
    executions: Array<{
      item: { name: string };
      response?: { code: number };
      assertions?: Array<{ assertion: string; error?: { message: string } }>;
    }>;
  };
}
type NewmanRun = (
  options: Record<string, unknown>,
  done: (error: Error | null, summary: NewmanSummary) => void,
) => void;
const newman = createRequire(import.meta.url)('newman') as { run: NewmanRun };

let sandbox: Launched | undefined;
let origin = '';
let mockOrigin = '';

beforeAll(async () => {
  const port = await freePort();
  let mockPort = await freePort();
  while (mockPort === port) mockPort = await freePort();
  sandbox = launch('sandbox/main.ts', ['--port', String(port), '--mock-port', String(mockPort)]);
  await sandbox.waitForOutput('Ctrl-C stops both.');
  origin = `http://127.0.0.1:${port}`;
  mockOrigin = `http://127.0.0.1:${mockPort}`;
}, 90_000);

afterAll(() => {
  if (sandbox) killGroup(sandbox.pgid);
});

async function served(path: string): Promise<string> {
  const response = await fetch(`${origin}${path}`);
  expect(response.status, path).toBe(200);
  return response.text();
}

function runCollection(collection: unknown, environment: unknown, baseUrl: string): Promise<NewmanSummary> {
  return new Promise((resolve, reject) => {
    newman.run(
      {
        collection,
        environment,
        envVar: [{ key: 'baseUrl', value: baseUrl }],
        reporters: [],
        timeoutRequest: 10_000,
      },
      (error, summary) => (error ? reject(error) : resolve(summary)),
    );
  });
}

/** Every request's name with its assertions and failures, for a readable comparison. */
function outcomeOf(summary: NewmanSummary) {
  return summary.run.executions.map((execution) => ({
    request: execution.item.name,
    assertions: execution.assertions?.length ?? 0,
    failed: (execution.assertions ?? [])
      .filter((a) => a.error)
      .map((a) => `${a.assertion}: ${a.error?.message}`),
  }));
}

describe('the partner files the sandbox serves', { timeout: 120_000 }, () => {
  it.each([
    ['the sandbox', () => origin],
    ['the mock', () => mockOrigin],
  ])(
    'the Postman collection passes every assertion against %s, at least one per request',
    async (_name, base) => {
      const collection = JSON.parse(await served('/postman/collection.json')) as {
        item: Array<{ item: unknown[] }>;
      };
      const environment = JSON.parse(await served('/postman/environment.json')) as unknown;
      const requests = collection.item.flatMap((folder) => folder.item).length;
      const summary = await runCollection(collection, environment, base());
      const outcome = outcomeOf(summary);
      expect(outcome).toHaveLength(requests);
      for (const request of outcome) {
        expect(request.assertions, request.request).toBeGreaterThan(0);
        expect(request.failed, request.request).toEqual([]);
      }
      expect(summary.run.failures.map((f) => f.error.message)).toEqual([]);
    },
  );

  it('fails exactly the requests whose answer a deployment decides otherwise (variant 1)', async () => {
    // Variant 1 answers a revoked key with key_revoked, lets x-api-key win over a second key and
    // refuses a bad limit with 422: legal choices, and not the ones the collection documents.
    const variant = await startReferenceServer({ log: false, variant: variantOf(1) });
    try {
      const collection = JSON.parse(await served('/postman/collection.json')) as unknown;
      const environment = (await (
        await fetch(`${variant.baseUrl}/postman/environment.json`)
      ).json()) as unknown;
      const outcome = outcomeOf(await runCollection(collection, environment, variant.baseUrl));
      expect(outcome.filter((r) => r.failed.length > 0).map((r) => r.request)).toEqual([
        'Revoked key: 401 unauthorized',
        'limit out of range: 400 invalid_parameter',
        'Both key headers with different keys: 400 conflicting_credentials',
      ]);
    } finally {
      await variant.close();
    }
  });

  it('each request of /requests.http gets the status its title says', async () => {
    const text = await served('/requests.http');
    const variables = Object.fromEntries([...text.matchAll(/^@(\w+) = (.*)$/gm)].map((m) => [m[1], m[2]]));
    const fill = (line: string) =>
      line.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => variables[name] ?? '');
    const blocks = text.split(/^### /m).slice(1);
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks) {
      const [title = '', requestLine = '', ...headerLines] = block.split('\n');
      const expected = Number(/\(expect (\d{3})\)/.exec(title)?.[1]);
      const [method = '', url = ''] = fill(requestLine).split(' ');
      const headers = headerLines
        .filter((line) => /^[\w-]+: /.test(line))
        .map(
          (line) =>
            fill(line)
              .split(/: (.*)/s)
              .slice(0, 2) as [string, string],
        );
      const response = await fetch(url, { method, headers });
      await response.body?.cancel();
      expect(response.status, title).toBe(expected);
    }
  });
});
