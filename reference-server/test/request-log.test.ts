import type { OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeWalksOf, bearer, startTestServer, type TestServer } from './harness.ts';

interface RequestRecord {
  msg: string;
  level: string;
  time: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
}

let server: TestServer;
const records: RequestRecord[] = [];
beforeAll(async () => {
  server = await startTestServer({ log: (record) => records.push(record as unknown as RequestRecord) });
});
afterAll(() => server.close());

describe('structured request logs', () => {
  it('logs method, path, status, duration and the request id of every request, and never a key', async () => {
    const keys = Object.values(server.keys);
    const walk = activeWalksOf(server.dataset, 0)[0];
    const requests: { path: string; headers: OutgoingHttpHeaders; method?: string }[] = [];
    for (const key of keys) {
      requests.push({ path: '/api/v1/walks?limit=2', headers: bearer(key) });
      requests.push({ path: `/api/v1/walks/${walk?.id}`, headers: { 'x-api-key': key } });
      requests.push({
        path: `/api/v1/walks?limit=1&key=${key}`,
        headers: { 'x-api-key': key, ...bearer(key) },
      });
      requests.push({ path: `/api/v1/walks/${key}`, headers: bearer(key) });
      requests.push({ path: `/nope/${key}/x`, headers: {} });
      requests.push({ path: '/api/v1/walks', headers: { authorization: `Basic ${key}` }, method: 'POST' });
    }
    const ids: string[] = [];
    for (const { path, headers, method = 'GET' } of requests) {
      const answer = await server.send(method, path, headers);
      ids.push(String(answer.headers['x-request-id']));
    }
    await new Promise((resolve) => setImmediate(resolve));

    const requestRecords = records.filter((record) => record.msg === 'request');
    expect(requestRecords.map((record) => record.request_id)).toEqual(ids);
    requestRecords.forEach((record, i) => {
      expect(record.method).toBe(requests[i]?.method ?? 'GET');
      expect(typeof record.status).toBe('number');
      expect(record.duration_ms).toBeGreaterThan(0); // 0 or NaN would mean it was never measured
      expect(record.path.includes('?')).toBe(false);
      expect(Number.isNaN(Date.parse(record.time))).toBe(false);
    });
    expect(requestRecords.map((record) => record.status)).toContain(200);
    expect(requestRecords.map((record) => record.status)).toContain(405);
    const everything = JSON.stringify(records);
    for (const key of keys) expect(everything.includes(key)).toBe(false);
    expect(everything).toContain('svc_sk_live_[redacted]');
  });
});
