/**
 * Broken apart from not judged: a rule fails only when an answer came back and contradicts it.
 * Requests never sent, answers that never came, and answers the rules about every answer already
 * failed leave the rules that needed them unjudged, and the run says why in one line (exit 2).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../reference-server/start.ts';
import { listen, type Listening } from '../../tools/test-support/listen.ts';
import { configFor, requiredFailures, runCli } from './harness.ts';
import { runSuite } from '../run/runner.ts';

type Rewrite = (
  req: IncomingMessage,
  answer: { status: number; headers: Record<string, string>; body: Buffer },
) => { status: number; headers: Record<string, string>; body: Buffer } | 'hang';

let reference: Awaited<ReturnType<typeof startReferenceServer>>;
const proxies: Listening[] = [];

beforeAll(async () => {
  reference = await startReferenceServer({ log: false });
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  await reference.close();
});

/** A gateway in front of the reference server that rewrites its answers (or never gives one). */
async function gateway(rewrite: Rewrite): Promise<string> {
  const upstream = new URL(reference.baseUrl);
  const hanging = new Set<ServerResponse>();
  const proxy = await listen(
    createServer((req, res) => {
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.once('end', () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(answer.headers)) {
              if (
                typeof value === 'string' &&
                !['connection', 'transfer-encoding', 'content-length'].includes(name)
              )
                headers[name] = value;
            }
            const rewritten = rewrite(req, {
              status: answer.statusCode ?? 502,
              headers,
              body: Buffer.concat(chunks),
            });
            if (rewritten === 'hang') {
              hanging.add(res);
              res.once('close', () => hanging.delete(res));
              return;
            }
            res.writeHead(rewritten.status, {
              ...rewritten.headers,
              'content-length': String(rewritten.body.length),
            });
            res.end(req.method === 'HEAD' ? undefined : rewritten.body);
          });
        },
      );
      out.once('error', () => res.destroy());
      req.pipe(out);
    }),
  );
  proxies.push({
    ...proxy,
    close: async () => {
      for (const res of hanging) res.destroy();
      await proxy.close();
    },
  });
  return proxy.baseUrl;
}

/** A read of a walk by a real id: a UUID, not the suite's recognisable unknown one. */
const LISTED_READ =
  /\/walks\/(?!00000000-0000-4000-8000-)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const credentialsEnv = () => ({ ...reference.credentials });

describe('verdict classes', () => {
  it('a budget too small for the plan is not a failure: exit 2, naming the budget to give', async () => {
    const run = await runCli(['--base-url', reference.baseUrl, '--max-requests', '100'], credentialsEnv());
    expect(run.status, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(
      /not judged .*the request budget of 100 is spent; raise --max-requests to \d+/,
    );
    expect(run.stdout).not.toMatch(/✗ /);
    expect(run.stdout).not.toMatch(/API\d:2023 FAIL/);
  });

  it('answers that never come within --timeout are not failures: exit 2, naming the timeouts', async () => {
    const base = await gateway((req, answer) =>
      /\/walks\/[^/?]+/.test(req.url ?? '') && req.method === 'GET' ? 'hang' : answer,
    );
    const run = await runCli(['--base-url', base, '--timeout', '400', '--quiet'], credentialsEnv());
    expect(run.status, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(/the target timed out \d+ times at --timeout 400/);
    expect(run.stdout).not.toMatch(/✗ /);
  });

  it('a gateway that turns 404s into HTML pages is one failure, not a broken isolation', async () => {
    const base = await gateway((_req, answer) =>
      answer.status === 404
        ? {
            status: 404,
            headers: { 'content-type': 'text/html' },
            body: Buffer.from('<html><body><h1>404 Not Found</h1></body></html>'),
          }
        : answer,
    );
    const report = await runSuite(configFor(base, reference.credentials));
    expect(requiredFailures(report).map((line) => line.split(':')[0])).toEqual(['ENVELOPE-011']);
    const api1 = report.security?.find((c) => c.id === 'API1:2023');
    expect(api1?.status).not.toBe('fail');
  });

  it('one read of an item in a hundred a 500 is one failure: the rule about every answer', async () => {
    let reads = 0;
    const base = await gateway((req, answer) =>
      req.method === 'GET' && LISTED_READ.test(req.url ?? '') && ++reads % 100 === 50
        ? {
            status: 500,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from('{"ok":false,"error":{"code":"internal_error","message":"boom"}}'),
          }
        : answer,
    );
    const report = await runSuite(configFor(base, reference.credentials));
    expect(requiredFailures(report).map((line) => line.split(':')[0])).toEqual(['ENVELOPE-011']);
    expect(report.security?.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
  });
});
