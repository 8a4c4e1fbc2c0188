/**
 * `--spec FILE`: the server serves every live operation of the spec it is given. A resource with
 * no generator gets seeded data drawn from its schema (the same for the same seed, another for
 * another campaign, valid against the spec); its pages follow `limit` and a cursor the server
 * issued for that campaign's list alone; steering names the operation's own scope; and a spec
 * with an operation it cannot serve stops the start with one line naming it and why.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractValidator, loadSpec } from '../../spec/contract.ts';
import { listsAndSmsDecisions, plannedMadeLive } from '../../tools/test-support/planned-live.ts';
import { type RunningServer, startReferenceServer } from '../start.ts';

const MADE_LIVE = [
  '/api/v1/lists',
  '/api/v1/lists/{id}',
  '/api/v1/sms/campaigns',
  '/api/v1/sms/campaigns/{id}',
];
const PAGED = { pagedItems: ['/api/v1/lists/{id}'] };

let spec: string;
let server: RunningServer;

beforeAll(async () => {
  spec = plannedMadeLive(MADE_LIVE, listsAndSmsDecisions, PAGED);
  server = await startReferenceServer({ spec, log: false });
});
afterAll(() => server?.close());

interface Page {
  status: number;
  body: {
    ok: boolean;
    data: unknown;
    meta?: { count: number; next_cursor?: string | null };
    error?: { code: string; message: string };
  };
}

async function get(path: string, key = server.credentials.CONFORMANCE_API_KEY, at = server): Promise<Page> {
  const answer = await fetch(at.baseUrl + path, { headers: { authorization: `Bearer ${key}`, prefer: '' } });
  return { status: answer.status, body: (await answer.json()) as Page['body'] };
}

describe('a resource served from its schema', () => {
  it('pages to the end by the cursor it issues: each page within limit, no item twice, every item once', async () => {
    const whole = await get('/api/v1/lists?limit=100');
    const all = (whole.body.data as { id: string }[]).map((item) => item.id);
    expect(all.length).toBeGreaterThan(7);
    const seen: string[] = [];
    let path: string | undefined = '/api/v1/lists?limit=7';
    while (path) {
      const page: Page = await get(path);
      expect(page.status).toBe(200);
      const ids = (page.body.data as { id: string }[]).map((item) => item.id);
      expect(ids.length).toBeLessThanOrEqual(7);
      expect(page.body.meta?.count).toBe(ids.length);
      seen.push(...ids);
      const next = page.body.meta?.next_cursor;
      path = next ? `/api/v1/lists?limit=7&cursor=${encodeURIComponent(next)}` : undefined;
    }
    expect(seen).toEqual(all);
  });

  it("refuses a cursor it did not issue, and another campaign's, with 400 in the envelope", async () => {
    const first = await get('/api/v1/lists?limit=2');
    const cursor = first.body.meta?.next_cursor as string;
    const other = server.credentials.CONFORMANCE_OTHER_CAMPAIGN_KEY;
    for (const [path, key] of [
      ['/api/v1/lists?cursor=not-a-cursor', undefined],
      [`/api/v1/lists?cursor=${cursor.slice(0, -1)}A`, undefined],
      [`/api/v1/lists?limit=2&cursor=${cursor}`, other],
    ] as const) {
      const answer = await get(path, key);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error?.code).toBe('invalid_parameter');
    }
    expect((await get(`/api/v1/lists?limit=2&cursor=${cursor}`)).status).toBe(200);
  });

  it('pages the voters of one list, the next cursor beside them, as the common shape says', async () => {
    const lists = (await get('/api/v1/lists')).body.data as { id: string }[];
    const path = `/api/v1/lists/${lists[0]?.id}`;
    const first = (await get(`${path}?limit=10`)).body.data as { voters: unknown[]; next_cursor: string };
    expect(first.voters).toHaveLength(10);
    const second = (await get(`${path}?limit=10&cursor=${first.next_cursor}`)).body.data as typeof first;
    expect(second.voters).not.toContainEqual(first.voters[0]);
    // A cursor of one list's voters reads on no other list.
    expect((await get(`/api/v1/lists/${lists[1]?.id}?cursor=${first.next_cursor}`)).status).toBe(400);
  });

  it('gives the same data for the same seed, other data to another campaign, none to the empty one, all valid', async () => {
    const again = await startReferenceServer({ spec, log: false });
    try {
      const contract = createContractValidator(loadSpec(spec));
      const ours = await get('/api/v1/sms/campaigns');
      expect((await get('/api/v1/sms/campaigns', again.credentials.CONFORMANCE_API_KEY, again)).body).toEqual(
        ours.body,
      );
      const theirs = await get('/api/v1/sms/campaigns', server.credentials.CONFORMANCE_OTHER_CAMPAIGN_KEY);
      const empty = await get('/api/v1/sms/campaigns', server.credentials.CONFORMANCE_EMPTY_CAMPAIGN_KEY);
      expect(empty.body.data).toEqual([]);
      const ids = (page: Page) => (page.body.data as { id: string }[]).map((item) => item.id);
      expect(ids(theirs).some((id) => ids(ours).includes(id))).toBe(false);
      for (const page of [ours, theirs, empty]) {
        expect(contract.validateResponse('listSmsCampaigns', 200, page.body).errors).toEqual([]);
      }
      const one = await get(`/api/v1/sms/campaigns/${ids(ours)[0]}`);
      expect(contract.validateResponse('getSmsCampaign', 200, one.body).errors).toEqual([]);
      expect(one.body.data).toEqual((ours.body.data as unknown[])[0]);
      // Another campaign's item is not found, like an unknown one.
      const foreign = await get(`/api/v1/sms/campaigns/${ids(theirs)[0]}`);
      expect([foreign.status, foreign.body.error?.code]).toEqual([404, 'not_found']);
    } finally {
      await again.close();
    }
  });

  it("keeps the key roles and steers to the operation's own refusals", async () => {
    const noScope = await get('/api/v1/sms/campaigns', server.credentials.CONFORMANCE_NO_SCOPE_KEY);
    expect([noScope.status, noScope.body.error?.message]).toEqual([
      403,
      'This key lacks the sms:read scope.',
    ]);
    expect((await get('/api/v1/sms/campaigns', server.credentials.CONFORMANCE_REVOKED_KEY)).status).toBe(401);
    const steered = await fetch(`${server.baseUrl}/api/v1/lists`, {
      headers: { authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}`, prefer: 'code=403' },
    });
    expect(steered.status).toBe(403);
    expect(((await steered.json()) as Page['body']).error?.message).toBe(
      'This key lacks the lists:read scope.',
    );
    // The walks are still the canvassing day's.
    expect((await get('/api/v1/walks?limit=1')).status).toBe(200);
  });
});

/** The parts of a spec copy the refusals below edit. */
interface SpecCopy {
  paths: Record<
    string,
    { get: { parameters: object[]; responses: Record<string, object>; 'x-pagination': { cursor: string } } }
  >;
  components: { responses: Record<string, object> };
}

describe('a spec the server cannot serve', () => {
  /** The copy, edited; the start's refusal message. */
  async function refusalOf(edit: (doc: SpecCopy) => void): Promise<string> {
    const file = plannedMadeLive(MADE_LIVE, listsAndSmsDecisions, PAGED);
    const doc = parse(readFileSync(file, 'utf8')) as SpecCopy;
    edit(doc);
    writeFileSync(file, stringify(doc));
    const refused = await startReferenceServer({ spec: file, log: false }).then(
      async (running) => {
        await running.close();
        return undefined;
      },
      (error: Error) => error,
    );
    expect(refused?.name).toBe('UnservableSpec');
    expect(refused?.message).not.toContain('\n');
    return refused?.message ?? '';
  }

  it('refuses a parameter style it does not read, naming the operation', async () => {
    const message = await refusalOf((doc) => {
      (doc.paths['/api/v1/sms/campaigns'] as SpecCopy['paths'][string]).get.parameters.push({
        name: 'filter',
        in: 'query',
        style: 'deepObject',
        schema: { type: 'object' },
      });
    });
    expect(message).toMatch(
      /GET \/api\/v1\/sms\/campaigns \(listSmsCampaigns\) cannot be served: .*style deepObject/,
    );
  });

  it('refuses a schema it cannot draw data from (the SMS detail left undecided)', async () => {
    const message = await refusalOf((doc) => {
      (doc.paths['/api/v1/sms/campaigns/{id}'] as SpecCopy['paths'][string]).get.responses['200'] = {
        $ref: '#/components/responses/Undecided',
      };
      doc.components.responses.Undecided = {
        description: 'Not decided.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/UndecidedEnvelope' } } },
      };
    });
    expect(message).toMatch(/\(getSmsCampaign\) cannot be served: /);
  });

  it('refuses an x-pagination that names no cursor parameter', async () => {
    const message = await refusalOf((doc) => {
      (doc.paths['/api/v1/lists'] as SpecCopy['paths'][string]).get['x-pagination'].cursor = 'page_token';
    });
    expect(message).toMatch(/\(listLists\) cannot be served: x-pagination names the cursor page_token/);
  });
});
