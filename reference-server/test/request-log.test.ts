import type { OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeWalksOf,
  bearer,
  isRequestLine,
  type RecordedLog,
  recordingLogger,
  startTestServer,
  type TestServer,
} from './harness.ts';

let server: TestServer;
let log: RecordedLog;
beforeAll(async () => {
  log = recordingLogger();
  server = await startTestServer({ log: log.logger });
});
afterAll(() => server.close());

describe('structured request logs', () => {
  it('logs method, path, status, response time and the request id of every request, and never a key', async () => {
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
    const requestLines = await log.until(isRequestLine, requests.length);

    expect(requestLines.map((line) => line.req?.id)).toEqual(ids);
    requestLines.forEach((line, i) => {
      expect(line.req?.method).toBe(requests[i]?.method ?? 'GET');
      expect(typeof line.res?.statusCode).toBe('number');
      expect(line.responseTime).toBeGreaterThanOrEqual(0);
      expect(line.req?.path.includes('?')).toBe(false);
      expect(line.req?.path.startsWith('/')).toBe(true);
      expect(Number.isNaN(Date.parse(line.time))).toBe(false);
      expect(line.level).toBe('info');
    });
    expect(requestLines.map((line) => line.res?.statusCode)).toContain(200);
    expect(requestLines.map((line) => line.res?.statusCode)).toContain(405);
    for (const key of keys) expect(log.text().includes(key)).toBe(false);
    expect(log.text()).toContain('svc_sk_live_[redacted]');
  });

  it('measures the response time: an answer held back 30 ms is logged as taking that long', async () => {
    const slowLog = recordingLogger();
    const slow = await startTestServer({
      log: slowLog.logger,
      turbulence: { seed: 1, latency: { minMs: 30, maxMs: 30 } },
    });
    try {
      expect((await slow.get('/api/v1/walks', bearer(slow.keys.CONFORMANCE_API_KEY))).status).toBe(200);
      const [line] = await slowLog.until(isRequestLine);
      expect(line?.responseTime).toBeGreaterThanOrEqual(29);
    } finally {
      await slow.close();
    }
  });
});
