/**
 * Keys are secrets the server holds only as SHA-256 hashes and never writes down: not in the data
 * set, not in the keyring, not in any log line — whatever header, path, query or body a client put
 * a key in, and whatever the answer (200, 4xx, 429, 500).
 */
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials, generateDataset } from '../../fixtures/index.ts';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { Keyring } from '../auth/keyring.ts';
import {
  activeWalksOf,
  datasetFor,
  isRequestLine,
  rawRequest,
  type RecordedLog,
  recordingLogger,
  startTestServer,
  type TestServer,
} from './harness.ts';
import { expectNoSecret, requestsWith, secrets } from './key-forms.ts';

const dataset = datasetFor();
const demoKeys = Object.values(demoCredentials({ seed: dataset.seed }));

describe('keys at rest', () => {
  it('the data set holds hashes, never a plaintext key or key body', () => {
    const fresh = generateDataset();
    const text = JSON.stringify(fresh);
    for (const key of demoKeys) {
      expect(text.includes(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 24))).toBe(false);
      const hash = createHash('sha256').update(key).digest('hex');
      expect(fresh.apiKeys.filter((record) => record.hash === hash)).toHaveLength(1);
    }
    for (const record of fresh.apiKeys) {
      expect(record.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.values(record).some((value) => String(value).startsWith(KEY_PREFIX))).toBe(false);
    }
  });

  it('the keyring the server builds keeps no plaintext either', () => {
    const keyring = new Keyring(dataset.apiKeys);
    expect(keyring.lookup(demoKeys[0] ?? '').grant).toBeDefined();
    const dump = inspect(keyring, { depth: Infinity, showHidden: true, maxArrayLength: Infinity });
    for (const key of demoKeys)
      expect(dump.includes(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 24))).toBe(false);
    expect(dump).toContain(
      createHash('sha256')
        .update(demoKeys[0] ?? '')
        .digest('hex'),
    );
  });
});

describe('keys in the log', () => {
  let log: RecordedLog;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    log = recordingLogger();
    // A campaign missing from the data set makes the primary key's requests fail inside the route (500).
    const broken = structuredClone(dataset);
    const primaryHash = createHash('sha256')
      .update(demoKeys[0] ?? '')
      .digest('hex');
    const record = broken.apiKeys.find((candidate) => candidate.hash === primaryHash);
    if (record) record.campaignId = 'no-such-campaign';
    servers.push(
      await startTestServer({ log: log.logger }),
      await startTestServer({ log: log.logger, rateLimit: { requestsPerMinute: 2 } }),
      await startTestServer({ log: log.logger }, broken),
    );
  });
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it('never holds a key, whatever the request carried and whatever the answer', async () => {
    const walkId = activeWalksOf(dataset, 0)[0]?.id ?? '';
    const statuses = new Set<number>();
    let sent = 0;
    for (const server of servers) {
      const port = Number(new URL(server.baseUrl).port);
      for (const key of secrets) {
        for (const { method, path, headers, body } of requestsWith(key, walkId)) {
          statuses.add((await rawRequest(port, method, path, headers, body)).status);
          sent++;
        }
      }
    }
    // A request's line follows its answer: wait until there are as many as requests.
    expect(await log.until(isRequestLine, sent)).toHaveLength(sent);
    // The unexpected failures are logged with what broke.
    expect(log.lines.some((line) => line.level === 'error' && line.err !== undefined)).toBe(true);
    for (const status of [200, 400, 401, 404, 405, 429, 500]) expect(statuses.has(status)).toBe(true);
    expectNoSecret(log.text());
    // Masked, not dropped: the log still shows where a key was sent.
    expect(log.text()).toContain(`${KEY_PREFIX}[redacted]`);
  });

  it('redacts the two key headers of anything logged with its headers', () => {
    const { logger, text } = recordingLogger();
    const [key = '', other = ''] = demoKeys;
    logger.info({ req: { headers: { authorization: `Bearer ${key}`, 'x-api-key': other, accept: '*/*' } } });
    expectNoSecret(text());
    expect(JSON.parse(text())).toMatchObject({
      req: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' } },
    });
  });
});
