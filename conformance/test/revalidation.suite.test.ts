/**
 * Revalidation (ENVELOPE-015, D-CACHE): a live run sends each live GET operation's ETag back in
 * If-None-Match (a follow-up probe made from the first answer) and reports what came back; the
 * recording of that run is judged the same. Ours answers 304, as decided; a deployment that ignores
 * the condition, one that re-tags every answer and one that sends `no-store` without tags are each
 * reported for what they chose, and none fails the run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { DEFAULT_VARIANT } from '../../reference-server/variants/variant.ts';
import {
  LEGAL_VARIANTS,
  type MutationServer,
  startMutationServer,
} from '../../tools/test-support/mutations.ts';
import { harText } from '../reporters/har.ts';
import { redactorFor } from '../core/redact.ts';
import { runLive } from '../run/runner.ts';
import type { Exchange } from '../core/exchange.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, requiredFailures, resultOf, runCli } from './harness.ts';

let variants: MutationServer;
let noStore: RunningServer;
let dir: string;

beforeAll(async () => {
  variants = await startMutationServer();
  noStore = await startReferenceServer({ log: false, variant: { ...DEFAULT_VARIANT, caching: 'no-store' } });
  dir = mkdtempSync(join(tmpdir(), 'revalidation-'));
});

afterAll(async () => {
  await variants.close();
  await noStore.close();
  rmSync(dir, { recursive: true, force: true });
});

const legal = (name: string) => {
  const found = LEGAL_VARIANTS.find((variant) => variant.name === name);
  if (!found) throw new Error(`no legal variant ${name}`);
  return found;
};

/** A live run against `baseUrl`, and the verdict of its recording judged with --traffic. */
async function liveAndRecorded(baseUrl: string, credentials: Parameters<typeof configFor>[1], name: string) {
  const config = configFor(baseUrl, credentials);
  const { report, exchanges } = await runLive(config);
  const har = join(dir, `${name}.har`);
  writeFileSync(har, harText(exchanges, report, redactorFor(config.keys)));
  const recorded = await runCli([
    '--traffic',
    har,
    '--reporter',
    'json',
    '--output',
    join(dir, `${name}.json`),
    '--quiet',
  ]);
  return { report, exchanges, recorded };
}

const revalidations = (exchanges: readonly Exchange[]) =>
  exchanges.filter((e) => Object.keys(e.request.headers).some((h) => h.toLowerCase() === 'if-none-match'));

describe('revalidation', () => {
  it("sends each live operation's ETag back and passes on 304, live and from the recording", async () => {
    const { report, exchanges, recorded } = await liveAndRecorded(
      variants.urlOf('none'),
      variants.world.credentials,
      'ours',
    );
    const sent = revalidations(exchanges);
    expect(sent.map((e) => new URL(e.request.url).pathname)).toEqual([
      '/v/none/api/v1/walks',
      expect.stringMatching(/^\/v\/none\/api\/v1\/walks\/[0-9a-f-]{36}$/),
    ]);
    for (const again of sent) {
      const tag = Object.entries(again.request.headers).find(
        ([h]) => h.toLowerCase() === 'if-none-match',
      )?.[1];
      const first = exchanges.find(
        (e) => e.request.url === again.request.url && e !== again && e.response?.status === 200,
      );
      expect(tag).toBe(first?.response?.headers.etag);
      expect(again.response?.status).toBe(304);
      expect(again.seq).toBeGreaterThan(first?.seq ?? Infinity);
    }
    const result = resultOf(report, 'ENVELOPE-015');
    expect(result).toMatchObject({
      status: 'advisory',
      actual: '304 Not Modified to If-None-Match with the ETag an answer gave',
    });
    expect(result.differsFrom).toBeUndefined();
    expect(recorded.status, recorded.stdout).toBe(0);
  });

  it('reports a deployment that ignores If-None-Match: the same 200 again is conformant', async () => {
    const { report } = await liveAndRecorded(
      variants.urlOf(legal('revalidation-ignored')),
      variants.world.credentials,
      'ignored',
    );
    const result = resultOf(report, 'ENVELOPE-015');
    expect(result.status).toBe('advisory');
    expect(result.actual).toContain('the same 200 again, with the ETag sent in If-None-Match');
    expect(result.differsFrom).toEqual(['D-CACHE']);
    expect(requiredFailures(report)).toEqual([]);
  });

  it('finds an ETag that changes with every answer, live and from the recording', async () => {
    const { report, recorded } = await liveAndRecorded(
      variants.urlOf(legal('etag-per-answer')),
      variants.world.credentials,
      'retagged',
    );
    const result = resultOf(report, 'ENVELOPE-015');
    expect(result.status).toBe('advisory');
    expect(result.actual).toContain('the same content came back under another ETag');
    expect(requiredFailures(report)).toEqual([]);
    const fromRecording = (JSON.parse(readFileSync(join(dir, 'retagged.json'), 'utf8')) as Report).results;

    expect(fromRecording.find((r) => r.id === 'ENVELOPE-015')?.actual).toContain(
      'the same content came back under another ETag',
    );
    expect(recorded.status).toBe(0);
  });

  it('reports no-store without an ETag as a legal choice, and asks nothing more', async () => {
    const { report, exchanges } = await liveAndRecorded(noStore.baseUrl, noStore.credentials, 'no-store');
    const result = resultOf(report, 'ENVELOPE-015');
    expect(result.status).toBe('advisory');
    expect(result.actual).toBe('no ETag (Cache-Control: no-store)');
    expect(result.differsFrom).toEqual(['D-CACHE']);
    expect(revalidations(exchanges)).toEqual([]);
    expect(requiredFailures(report)).toEqual([]);
  });
});
