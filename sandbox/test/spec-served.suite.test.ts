/**
 * Planned endpoints made live by the spec alone: a copy of the spec with the lists and the SMS
 * campaigns live (CONTRIBUTING's recipe, step 1, and the API team's decisions: a declared cursor
 * on the lists, an inferred one on a list's voters, the SMS detail's shape), served as given
 * (`--spec`), passes the conformance suite run as a partner runs it (exit 0), with requests on
 * every new operation; and the sandbox's partner files list every one of them with its own ids.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../conformance/cli/cli.ts';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { listsAndSmsDecisions, plannedMadeLive } from '../../tools/test-support/planned-live.ts';
import { partnerFilesOf } from '../partner-files.ts';

const MADE_LIVE = [
  '/api/v1/lists',
  '/api/v1/lists/{id}',
  '/api/v1/sms/campaigns',
  '/api/v1/sms/campaigns/{id}',
];
const NEW_OPERATIONS = ['listLists', 'getList', 'listSmsCampaigns', 'getSmsCampaign'];

let dir: string;
let spec: string;
let server: RunningServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spec-served-'));
  spec = plannedMadeLive(MADE_LIVE, listsAndSmsDecisions, { pagedItems: ['/api/v1/lists/{id}'] });
  server = await startReferenceServer({ spec, log: false, partnerFiles: partnerFilesOf(spec) });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

interface JsonReport {
  summary: { verdict: string };
  coverage?: { operations: { operationId: string; statuses: { status: string; observed: number }[] }[] };
}

describe('a spec with planned endpoints made live, served as given', { timeout: 600_000 }, () => {
  it('passes the conformance suite, which sends every new operation its requests', async () => {
    let output = '';
    const io = { stdout: (text: string) => (output += text), stderr: (text: string) => (output += text) };
    const file = join(dir, 'report.json');
    const argv = ['--base-url', server.baseUrl, '--spec', spec, '--reporter', 'json', '--output', file];
    const status = await main(argv, { ...server.credentials, NO_COLOR: '1' }, io);
    expect(status, output.slice(-2_000)).toBe(0);
    const report = JSON.parse(readFileSync(file, 'utf8')) as JsonReport;
    expect(report.summary.verdict).toBe('pass');
    for (const operationId of NEW_OPERATIONS) {
      const operation = report.coverage?.operations.find((o) => o.operationId === operationId);
      const observed = (operation?.statuses ?? []).filter((s) => s.observed > 0).map((s) => s.status);
      expect(observed, operationId).toEqual(expect.arrayContaining(['200', '401', '403']));
    }
  });

  it('lists every live operation in the partner files, with ids of its own data', async () => {
    const [collection = '', http = ''] = await Promise.all(
      ['/postman/collection.json', '/requests.http'].map(async (path) =>
        (await fetch(server.baseUrl + path)).text(),
      ),
    );
    const lists = (await (
      await fetch(`${server.baseUrl}/api/v1/lists`, {
        headers: { authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}` },
      })
    ).json()) as { data: { id: string }[] };
    for (const text of [collection, http]) {
      expect(text).not.toContain('__');
      expect(text).toContain(server.baseUrl);
      for (const path of MADE_LIVE) expect(text).toContain(path.replace(/\{id\}$/, ''));
    }
    // The item requests name an item the sandbox serves, which the key's campaign holds.
    expect(http).toContain(`@getListId = ${lists.data[0]?.id}`);
    const sms = /@getSmsCampaignId = (\S+)/.exec(http)?.[1];
    const answer = await fetch(`${server.baseUrl}/api/v1/sms/campaigns/${sms}`, {
      headers: { authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}` },
    });
    expect(answer.status).toBe(200);
  });
});
