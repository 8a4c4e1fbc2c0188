/**
 * The reference page as the sandbox serves it: the spec's example walks become walks of its own
 * data (which stay all day on the clock), and the page's sidebar links, opened on their own, lead
 * to the page at their section. A page of a few lines stands in for the built one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, bearer, startTestServer, type TestServer } from './harness.ts';

const examples = (
  contract.doc.components?.schemas?.WalkSummary as { examples: { id: string; count: number }[] }
).examples;
let dir: string;
let server: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reference-page-'));
  const page = join(dir, 'page.html');
  const ids = examples.map((example) => `<code>${example.id}</code>`).join('\n');
  await writeFile(page, `<a href="/section/errors">Errors</a><a href="/walks">Walks</a>\n${ids}\n`);
  server = await startTestServer({ docsPath: page, clock: { rate: 0 } });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const servedIds = (text: string) =>
  [...text.matchAll(/<code>([^<]+)<\/code>/g)].map((match) => match[1] as string);

describe('the reference page as served', () => {
  it('names walks of its own data in place of the spec’s example walks, all day long', async () => {
    const ids = servedIds((await server.get('/docs')).text);
    expect(ids).toHaveLength(examples.length);
    for (const example of examples) expect(ids).not.toContain(example.id);
    expect(new Set(ids).size).toBe(ids.length);
    const key = bearer(server.keys.CONFORMANCE_API_KEY);
    for (const advance of [undefined, '24h']) {
      if (advance) await server.send('POST', '/sandbox/clock', {}, JSON.stringify({ advance }));
      for (const [i, id] of ids.entries()) {
        const answer = await server.get(`/api/v1/walks/${id}`, key);
        expect(answer.status, `${id} after ${advance ?? 'nothing'}`).toBe(200);
        const stops = (answer.body as { data: { stops: unknown[] } }).data.stops;
        // The empty example stays an empty walk; the others have stops.
        expect(stops.length === 0).toBe(examples[i]?.count === 0);
      }
    }
  });

  it.each(['/section/errors', '/walks'])(
    'sends the page’s own link %s to the page at that section',
    async (path) => {
      const answer = await server.get(path);
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe(`/docs#${path}`);
    },
  );

  it('leaves every other path unknown', async () => {
    for (const path of ['/section/nope', '/walk', '/section']) {
      expect((await server.get(path)).status).toBe(404);
    }
  });
});
