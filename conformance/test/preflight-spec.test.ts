/**
 * The pre-flight asks the spec under test, not the walks: with a spec whose only live collection
 * is the lists, its first request, its look at the other key header, its silence line and its
 * mock warning all name the lists operation, and nothing asks a walks path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSpecModel } from '../core/spec-model.ts';
import type { Via } from '../core/exchange.ts';
import { preflight } from '../run/preflight/preflight.ts';
import { HttpClient } from '../transport/client.ts';
import { configFor } from './harness.ts';
import { listen, type Listening } from '../../tools/test-support/listen.ts';
import { listsOnlySpec } from '../../tools/test-support/lists-server.ts';

const KEY = 'svc_sk_live_preflightlistsonly000000000000';

const spec = loadSpecModel(listsOnlySpec());
const lists = spec.live.find((op) => op.kind === 'collection');

let server: Listening | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A target answering with `answer`, noting every path asked. */
async function target(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const asked: string[] = [];
  server = await listen((req, res) => {
    asked.push(req.url ?? '');
    answer(req, res);
  });
  const config = configFor(server.baseUrl, { CONFORMANCE_API_KEY: KEY }, { timeoutMs: 400, retries: 0 });
  client = new HttpClient(config);
  return { asked, run: () => preflight(client as HttpClient, config, spec) };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** The header a request carried its key in. */
const via = (req: IncomingMessage): Via | undefined =>
  req.headers.authorization ? 'bearer' : req.headers['x-api-key'] ? 'x-api-key' : undefined;

describe('the pre-flight of a spec whose first live collection is the lists', () => {
  it('is a spec without walks', () => {
    expect(lists?.path).toBe('/api/v1/lists');
    expect(spec.live.some((op) => op.path.includes('walks'))).toBe(false);
  });

  it('asks the lists, and the lists again in the other header, when Bearer is refused', async () => {
    const { asked, run } = await target((req, res) =>
      via(req) === 'x-api-key'
        ? json(res, 200, { ok: true, data: [], meta: { count: 0, next_cursor: null } })
        : json(res, 401, { ok: false, error: { code: 'unauthorized', message: 'No key.' } }),
    );
    const found = await run();
    expect(found.stop).toBeUndefined();
    expect(found.warnings.join('\n')).toContain(
      'CONFORMANCE_API_KEY is refused in Authorization: Bearer (401) but accepted in x-api-key',
    );
    expect(asked).toEqual(['/api/v1/lists', '/api/v1/lists']);
  });

  it('names the lists request in its line when the target never answers', async () => {
    const { asked, run } = await target(() => undefined);
    const found = await run();
    expect(found.stop).toMatch(/gave no answer within 400 ms \(GET \/api\/v1\/lists\)/);
    expect(asked.every((path) => path.startsWith('/api/v1/lists'))).toBe(true);
  });

  it("warns of a mock when the lists hold only the spec's own example lists", async () => {
    // The example the lists operation's 200 answer names in the spec.
    const example = spec.doc.components?.examples?.SavedLists as { value: { data: unknown[] } } | undefined;
    expect(example?.value.data.length).toBeGreaterThan(0);
    const { run } = await target((_req, res) => json(res, 200, example?.value));
    const found = await run();
    expect(found.warnings.join('\n')).toMatch(
      /answers the spec's own example items of listLists: it looks like a mock/,
    );
  });
});
