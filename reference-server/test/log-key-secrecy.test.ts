/**
 * Keys are secrets the server holds only as SHA-256 hashes and never writes down: not in the data
 * set, not in the keyring, not in any log line — whatever header, path, query or body a client put
 * a key in, and whatever the answer (200, 4xx, 429, 500).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
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
import { startServerProcess } from '../../tools/test-support/server-process.ts';

const dataset = datasetFor();
const demoKeys = Object.values(demoCredentials({ seed: dataset.seed }));
/** Well-formed keys nobody issued, and one far too long: bad keys must not be logged either. */
const badKeys = [
  `${KEY_PREFIX}${randomBytes(20).toString('hex')}`,
  `${KEY_PREFIX}${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}`,
  `${KEY_PREFIX}${'Q'.repeat(6_000)}`,
];
const secrets = [...demoKeys, ...badKeys];

/** Every form a key could take on its way into a log line. */
function secretForms(key: string): string[] {
  const body = key.slice(KEY_PREFIX.length);
  return [key, body.slice(0, 24), encodeURIComponent(key), Buffer.from(`${key}:`).toString('base64')];
}

function expectNoSecret(text: string): void {
  for (const key of secrets) {
    for (const form of secretForms(key)) expect(text.includes(form)).toBe(false);
  }
}

/** Requests carrying `key` in every place a client might put one. */
function requestsWith(
  key: string,
  walkId: string,
): { method: string; path: string; headers: OutgoingHttpHeaders; body?: string }[] {
  const body = key.slice(KEY_PREFIX.length);
  return [
    { method: 'GET', path: '/api/v1/walks?limit=2', headers: { authorization: `Bearer ${key}` } },
    { method: 'GET', path: `/api/v1/walks/${walkId}`, headers: { 'x-api-key': key } },
    { method: 'GET', path: '/api/v1/walks', headers: { authorization: `bearer  ${key}`, 'x-api-key': key } },
    {
      method: 'GET',
      path: '/api/v1/walks',
      headers: { authorization: `Bearer ${key}`, 'x-api-key': demoKeys[2] },
    },
    {
      method: 'GET',
      path: '/api/v1/walks',
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    },
    { method: 'GET', path: `/api/v1/walks?api_key=${key}&limit=${key}`, headers: {} },
    { method: 'GET', path: `/api/v1/walks/${key}`, headers: { authorization: `Bearer ${key}` } },
    { method: 'GET', path: `/api/v1/walks/${body}`, headers: { 'x-api-key': key } },
    { method: 'GET', path: `/api/v1/walks/svc%5Fsk%5Flive%5F${body}`, headers: { 'x-api-key': key } },
    { method: 'GET', path: `/${key}/${body}`, headers: {} },
    { method: 'HEAD', path: '/api/v1/walks', headers: { 'x-api-key': key } },
    { method: 'POST', path: '/api/v1/walks', headers: { 'x-api-key': key }, body: JSON.stringify({ key }) },
    {
      method: 'OPTIONS',
      path: '/api/v1/walks',
      headers: { authorization: `Bearer ${key}`, origin: 'https://evil.example' },
    },
  ];
}

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

describe('keys in the log of `npm run reference-server`', () => {
  it('a run that used every demo key in both headers prints none of them', async () => {
    const server = startServerProcess(['--port', '0', '--rate-limit', '5/min']);
    try {
      const baseUrl = await server.listening();
      const port = Number(new URL(baseUrl).port);
      const walkId = activeWalksOf(dataset, 0)[0]?.id ?? '';
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
