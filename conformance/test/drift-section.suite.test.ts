/**
 * The drift section: every difference of a deployment's answers from spec/openapi.yaml, listed once,
 * grouped by operation, status and place, counted over the answers that showed it; the same
 * findings the DRIFT checks judge (advisory, failures under --strict), in every report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../core/exchange.ts';
import type { Report } from '../core/report-model.ts';
import { driftKey, driftSection, MAX_FINDINGS, parseError } from '../core/drift-analysis.ts';
import { DRIFT_RULE_IDS } from '../rules/drift.ts';
import { redactorFor } from '../core/redact.ts';
import { Keyring } from '../core/credentials.ts';
import { observe } from '../core/observe.ts';
import { recognise } from '../rules/catalogue/recognise.ts';
import { formatReport, REPORTER_NAMES } from '../reporters/format.ts';
import { runSuite, runLive, specModelFor } from '../run/runner.ts';
import type { DriftServer } from './drift-server.ts';
import { startDriftServer } from './drift-server.ts';
import { configFor, requiredFailures, resultOf, runCli } from './harness.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

let server: DriftServer;
let strict: { report: Report; exchanges: readonly Exchange[] };
let lenient: Report;
let clean: Report;

beforeAll(async () => {
  server = await startDriftServer();
  strict = await runLive(configFor(server.urlOf({}), server.credentials, { strict: true }));
  lenient = await runSuite(configFor(server.urlOf({}), server.credentials));
  clean = await runSuite(configFor(server.referenceUrl, server.credentials, { strict: true }));
});

afterAll(async () => {
  await server.close();
});

const finding = (report: Report, operationId: string, status: number, where: string) =>
  report.drift.findings.find(
    (f) => f.operationId === operationId && f.status === status && f.where === where,
  );

/**
 * Whether an exchange is one of the attacker's catalogue's private probes, which drift does not
 * count: a trick `recognise` tells back, a keyed family's tenant selector (a query parameter the
 * list does not declare, or a campaign, tenant or organisation header) or an injection-shaped id
 * (a quote, an operator, a traversal, an overlong id).
 */
function isTrick(exchange: Exchange): boolean {
  const url = new URL(exchange.request.url);
  if ([...url.searchParams.keys()].some((name) => name !== 'limit')) return true;
  const id = decodeURIComponent(url.pathname.split('/walks/')[1] ?? '');
  if (/['"{}$]|\.\./.test(id) || id.length > 200) return true;
  if (Object.keys(exchange.request.headers).some((name) => /^x-(campaign|tenant|org)/i.test(name)))
    return true;
  const spec = specModelFor();
  const basePath = new URL(exchange.request.url).pathname.replace(/\/api\/v1.*$/, '');
  const obs = observe(exchange, { spec, keyring: new Keyring({ keys: {} }), basePath, source: 'live' });
  return recognise(spec, obs).tricks.length > 0;
}

/**
 * Answers of GET /api/v1/walks with this status (and, optionally, a non-empty list). The path as
 * sent: `/api/v1/./walks` (AUTH-015's spellings) is not the list's path, though URL parsing makes it so.
 * The catalogue's probes are left out: a trick, or a read made again (the same request twice).
 */
function listAnswers(exchanges: readonly Exchange[], status: number, nonEmpty = false): number {
  const seen = new Set<string>();
  return exchanges.filter((e) => {
    const [sent = ''] = e.request.url.split('?');
    if (e.request.method !== 'GET' || !sent.endsWith('/api/v1/walks') || isTrick(e)) return false;
    const request = JSON.stringify([e.request.url, e.request.headers]);
    if (seen.has(request)) return false;
    seen.add(request);
    if (e.response?.status !== status) return false;
    return !nonEmpty || ((e.response.json as { data?: unknown[] }).data?.length ?? 0) > 0;
  }).length;
}

describe('drift section', () => {
  it('lists each difference once, grouped by operation, status and place', () => {
    const keys = strict.report.drift.findings.map(driftKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(finding(strict.report, 'listWalks', 200, '/data/*/region')?.kind).toBe('field');
    expect(finding(strict.report, 'listWalks', 200, '/meta/next_cursor')?.kind).toBe('field');
    const invalidId = strict.report.drift.findings.filter(
      (f) => f.operationId === 'getWalk' && f.status === 422,
    );
    expect(invalidId.map((f) => `${f.kind} ${f.where}`)).toEqual([
      'status status',
      'content-type header Content-Type',
      'field /error/field',
    ]);
    expect(invalidId[1]?.message).toBe('application/problem+json (documented: application/json)');
  });

  it('counts the answers that showed each difference, out of the answers of that operation and status', () => {
    const region = finding(strict.report, 'listWalks', 200, '/data/*/region');
    const cursor = finding(strict.report, 'listWalks', 200, '/meta/next_cursor');
    // the empty campaign's list has no walk to carry the field, but its meta does
    expect(region?.responses).toBe(listAnswers(strict.exchanges, 200, true));
    expect(region?.of).toBe(listAnswers(strict.exchanges, 200));
    expect(cursor?.responses).toBe(listAnswers(strict.exchanges, 200));
    expect(region?.responses).toBeLessThan(cursor?.responses ?? 0);
    const status = finding(strict.report, 'getWalk', 422, 'status');
    expect(status?.responses).toBe(
      strict.exchanges.filter((e) => e.response?.status === 422 && !isTrick(e)).length,
    );
    expect(status?.example.curl).toMatch(
      /^curl .*\/api\/v1\/walks\/[^ ]+' -H "Authorization: Bearer \$CONFORMANCE_API_KEY"$/,
    );
  });

  it('feeds the DRIFT checks: under --strict they fail on exactly these findings, and nothing else fails', () => {
    const { report } = strict;
    expect(requiredFailures(report).map((line) => line.split(':')[0])).toEqual([
      'DRIFT-001',
      'DRIFT-002',
      'DRIFT-003',
    ]);
    const kinds = { 'DRIFT-001': 'field', 'DRIFT-002': 'status', 'DRIFT-003': 'content-type' } as const;
    for (const [id, kind] of Object.entries(kinds)) {
      const result = resultOf(report, id);
      const mine = report.drift.findings.filter((f) => f.kind === kind);
      expect(result.details ?? [result.actual], id).toHaveLength(mine.length);
      expect(result.actual, id).toContain(`${mine[0]?.operationId} ${mine[0]?.status}`);
    }
  });

  it('reports the same drift without --strict, as advisories that do not fail the run', () => {
    expect(lenient.summary.verdict).toBe('pass');
    expect(resultOf(lenient, 'DRIFT-001').status).toBe('advisory');
    expect(lenient.drift.findings.map(driftKey)).toEqual(strict.report.drift.findings.map(driftKey));
  });

  it('shows the drift in every report, each difference once', () => {
    const redact = redactorFor(server.credentials);
    const texts = Object.fromEntries(
      REPORTER_NAMES.map((name) => [name, formatReport(name, strict.report, redact)]),
    );
    const occurrences = (text: string, part: string) => text.split(part).length - 1;
    expect(occurrences(texts.console ?? '', '/data/*/region: not documented — ')).toBe(1);
    expect(texts.console).toContain(
      '  GET /api/v1/walks/{id} (getWalk) → 422\n    status        not documented for this operation',
    );
    expect(occurrences(texts.junit ?? '', '/data/*/region: not documented — ')).toBe(1);
    expect(texts.junit).toMatch(/<testsuite name="drift"[^]*<system-out>DRIFT \(5 difference/);
    expect((JSON.parse(texts.json ?? '') as Report).drift.findings).toHaveLength(5);
    expect(occurrences(texts.html ?? '', '<code>/data/*/region</code>')).toBe(1);
    expect(texts.html).toContain('<code>GET /api/v1/walks/{id}</code> getWalk → 422');
  });

  it('lists values the schema refuses too, as the ENVELOPE-005 failure they cause', async () => {
    const variants = await startMutationServer();
    try {
      const mutation = MUTATIONS.find((m) => m.name === 'lat-as-string');
      if (!mutation) throw new Error('variant missing');
      const report = await runSuite(configFor(variants.urlOf(mutation), variants.world.credentials));
      const lat = finding(report, 'listWalks', 200, '/data/*/lat');
      expect(lat).toMatchObject({ kind: 'schema', check: 'ENVELOPE-005', message: 'must be number,null' });
      expect(resultOf(report, 'ENVELOPE-005').status).toBe('fail');
      expect(report.drift.findings.filter((f) => f.kind !== 'schema')).toEqual([]);
    } finally {
      await variants.close();
    }
  });

  it('finds no drift in the reference server, and says so', () => {
    expect(clean.drift.findings).toEqual([]);
    expect(clean.drift.judged).toBeGreaterThan(10);
    expect(formatReport('console', clean, redactorFor(server.credentials))).toContain(
      `DRIFT: none — the ${clean.drift.judged} answers of documented operations match spec/openapi.yaml`,
    );
  });

  it('names the spec the run judged against, not the project spec, when --spec named another', () => {
    const next = { ...clean, spec: { ...clean.spec, path: 'next.yaml' } };
    for (const format of ['console', 'html'] as const) {
      const text = formatReport(format, next, redactorFor(server.credentials));
      expect(text, format).toContain(`answers of documented operations match next.yaml`);
      expect(text, format).not.toContain('match spec/openapi.yaml');
    }
  });

  it('--strict exits 1 on drift; without it the run passes and still counts the drift', async () => {
    const run = (argv: string[]) =>
      runCli(['--base-url', server.urlOf({}), ...argv], { ...server.credentials });
    const strictRun = await run(['--strict']);
    expect(strictRun.status).toBe(1);
    const lenientRun = await run([]);
    expect(lenientRun.status).toBe(0);
    // On a pass the console counts advisory drift in one line; --verbose and the reports list it.
    expect(lenientRun.stdout).toContain('DRIFT: 5 difference(s) from spec/openapi.yaml, advisory');
  });
});

describe('drift analysis', () => {
  const spec = specModelFor();
  const base = 'http://127.0.0.1:1';
  const ctx = {
    contract: spec.contract,
    closedContract: spec.closedContract,
    operations: {
      operationOf: (exchange: Exchange) =>
        spec.match(exchange.request.method, new URL(exchange.request.url).pathname)?.op,
    },
  };

  it('reads the path, message and detail of a validation error, array indexes as *', () => {
    expect(parseError('/data/12/counts must NOT have additional properties (extra)')).toEqual({
      path: '/data/*/counts',
      message: 'must NOT have additional properties',
      detail: 'extra',
    });
    expect(parseError("(body) must have required property 'ok'")).toEqual({
      path: '',
      message: "must have required property 'ok'",
    });
  });

  it('keeps at most MAX_FINDINGS findings when a target invents a field per walk, and counts the rest', () => {
    const walks = Array.from({ length: MAX_FINDINGS + 50 }, (_, i) => ({
      [`field_${i}_${'x'.repeat(300)}`]: i,
    }));
    const body = JSON.stringify({ ok: true, data: walks, meta: { count: walks.length } });
    const exchange: Exchange = {
      seq: 1,
      request: { method: 'GET', url: `${base}/api/v1/walks`, keys: [], headers: {}, curl: 'curl' },
      response: {
        status: 200,
        headers: {},
        contentType: 'application/json',
        mediaType: 'application/json',
        body,
        bytes: body.length,
        json: JSON.parse(body),
      },
      durationMs: 1,
      retries: 0,
    };
    const section = driftSection([exchange], ctx, DRIFT_RULE_IDS);
    expect(section.findings).toHaveLength(MAX_FINDINGS);
    expect(section.findings.length + section.omitted).toBeGreaterThan(MAX_FINDINGS + 50);
    expect(Math.max(...section.findings.map((f) => f.where.length))).toBeLessThanOrEqual(161);
  });
});
