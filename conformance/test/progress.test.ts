/**
 * Progress while a run runs: on a terminal one live line (requests, rate, elapsed) redrawn in place
 * and cleared before the report; `--log-requests` one line per attempt (method, path, status,
 * milliseconds) and never a key; output that is not a terminal stays as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { runCli } from './harness.ts';

const CLEAR_LINE = '\r\u001b[2K';
let reference: RunningServer;
let keys: Record<string, string>;

beforeAll(async () => {
  reference = await startReferenceServer({ log: false });
  const { CONFORMANCE_WEB_BASE_URL: _web, ...rest } = reference.credentials;
  keys = rest as Record<string, string>;
});
afterAll(() => reference?.close());

const judge = (flags: string[], live: boolean) =>
  runCli(['--base-url', reference.baseUrl, '--only', 'COLLECTION', ...flags], keys, { live });

describe('progress', () => {
  it('on a terminal: one live line, redrawn in place, cleared before the report', async () => {
    const run = await judge([], true);
    expect(run.status, run.stderr).toBe(0);
    const drawn = run.stdout.split(CLEAR_LINE);
    expect(drawn.length).toBeGreaterThan(2);
    expect(drawn[1]).toMatch(/^conformance: \d+ requests? · \d+\.\d\/s · \d+\.\d s$/);
    // The last clear is followed by the report alone, from its first line.
    expect(drawn.at(-1)).toMatch(/^Canvassing Read API conformance — /);
    expect(run.stdout.slice(0, run.stdout.indexOf(CLEAR_LINE))).toBe('');
  });

  it('not on a terminal: the output is the report alone, as before', async () => {
    const run = await judge([], false);
    expect(run.stdout).not.toContain('\r');
    expect(run.stdout).toMatch(/^Canvassing Read API conformance — /);
  });

  it('--log-requests: one line per request sent, with method, path, status and ms; no key', async () => {
    const run = await judge(['--log-requests', '--reporter', 'json', '--output', '/dev/null'], false);
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout
      .split('\n')
      .filter((line) => /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) /.test(line));
    const sent = Number(/(\d+) requests \(budget/.exec(run.stdout)?.[1]);
    expect(lines).toHaveLength(sent);
    for (const line of lines)
      expect(line).toMatch(/^[A-Z]+ \/\S* (\d{3}|[a-z-]+) \d+ ms( \(tried again\))?$/);
    expect(lines).toContain(lines.find((l) => /^GET \/api\/v1\/walks 200 \d+ ms$/.test(l)));
    for (const key of Object.values(keys)) expect(run.stdout).not.toContain(key);
  });
});
