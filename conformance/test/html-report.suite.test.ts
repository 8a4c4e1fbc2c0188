/**
 * `--reporter html`: one self-contained page — results per area and requirement, the failures with
 * their curl reproductions, expected failures, advisories, drift and the comparison — that loads
 * nothing from anywhere, shows target-supplied text as text, and never holds a key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../core/report-model.ts';
import type { DriftServer } from './drift-server.ts';
import { MARKUP_FIELD, startDriftServer } from './drift-server.ts';
import type { HtmlRun } from './html-report-run.ts';
import { EXPECTED_REASON, runForHtmlReport, STALE_REASON } from './html-report-run.ts';

let dir: string;
let server: DriftServer;
let run: HtmlRun;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-html-'));
  server = await startDriftServer();
  run = await runForHtmlReport(server, dir);
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** As the page shows text: HTML-escaped. */
const escaped = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

describe('HTML report', () => {
  it('is one page that loads nothing: no script, stylesheet link, image or external reference', () => {
    const { html } = run;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.length).toBeGreaterThan(100);
    expect(tags.filter((tag) => /^<(script|link|img|iframe|object|embed|base|form)\b/i.test(tag))).toEqual(
      [],
    );
    expect(tags.filter((tag) => /\s(src|srcset|action|poster|data)=/i.test(tag))).toEqual([]);
    const hrefs = tags.flatMap((tag) => [...tag.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1] ?? ''));
    expect(hrefs.length).toBeGreaterThan(3);
    for (const href of hrefs) {
      expect(href).toMatch(/^#[a-z-]+$/);
      expect(html).toContain(`id="${href.slice(1)}"`);
    }
    const style = /<style>([^]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(style).not.toMatch(/url\(|@import/);
  });

  it('shows every result, per area and requirement', () => {
    const areas = new Set(run.report.results.map((r) => r.area));
    for (const area of AREAS.filter((a) => areas.has(a)))
      expect(run.html).toContain(`<h3>${area} <span class="badge`);
    for (const r of run.report.results)
      expect(run.html).toContain(
        `<tr><td class="nowrap"><b>${r.id}</b></td><td class="nowrap">${escaped(r.section)}</td>`,
      );
  });

  it('shows each unexpected failure with expected, actual, hint and its curl reproduction', () => {
    const failures = run.report.results.filter(
      (r) => r.status === 'fail' && r.expectedFailure?.state !== 'failing',
    );
    // The run's deployment echoes keys (to prove redaction): AUTH-017 rightly fails it. Its limit=1
    // page repeats its walk: the schema (unique items) and the rule about unique ids see it.
    expect(failures.map((r) => r.id)).toEqual([
      'ENVELOPE-005',
      'COLLECTION-005',
      'AUTH-017',
      'DRIFT-001',
      'DRIFT-002',
      'DRIFT-003',
    ]);
    for (const r of failures) {
      const card = run.html.slice(run.html.indexOf(`<article class="card bad" id="check-${r.id}">`));
      const end = card.indexOf('</article>');
      expect(end, r.id).toBeGreaterThan(0);
      const body = card.slice(0, end);
      expect(body).toContain(`<dt>actual</dt><dd>${escaped(r.actual)}</dd>`);
      expect(body).toContain(`<pre class="curl">${escaped(r.request?.curl ?? '(no request)')}</pre>`);
    }
  });

  it('shows the expected failures with their reasons, and the entry that no longer fails', () => {
    expect(run.status).toBe(1);
    expect(run.html).toContain(`<p class="reason">Expected: ${escaped(EXPECTED_REASON)}</p>`);
    expect(run.html).toContain(
      `<b>Passed, but listed as an expected failure: remove the entry.</b> It was listed because: ${escaped(STALE_REASON)}`,
    );
  });

  it('lists the advisories, the drift and what changed since the previous report', () => {
    for (const r of run.report.results.filter((x) => x.status === 'advisory')) {
      expect(run.html).toContain(`<tr><td><b>${r.id}</b> ${escaped(r.title)}`);
    }
    expect(run.report.drift.findings.length).toBeGreaterThan(3);
    for (const f of run.report.drift.findings)
      expect(run.html).toContain(`<td><code>${escaped(f.where)}</code></td>`);
    const failing = run.report.results.filter((r) => r.status === 'fail').map((r) => r.id);
    expect(failing).toContain('COLLECTION-003');
    expect(run.report.comparison?.newlyFailing.map((c) => c.id)).toEqual(failing);
    expect(run.html).toContain('<section id="since"><h2>Since the previous report</h2>');
    for (const c of run.report.comparison?.newlyFailing ?? [])
      expect(run.html).toContain(`<tr class="bad"><td><b>${c.id}</b>`);
  });

  it('shows markup a target sent as text', () => {
    expect(run.html).not.toMatch(/<img/i);
    // in the drift's JSON path, as a JSON Pointer token (`/` reads `~1`)
    expect(run.html).toContain(`<code>/data/*/${escaped(MARKUP_FIELD.replaceAll('/', '~1'))}</code>`);
  });

  it('holds no key, though the target echoed them', () => {
    for (const [name, value] of Object.entries(server.credentials)) {
      if (name === 'CONFORMANCE_WEB_BASE_URL') continue;
      expect(run.html.includes(value), `${name} appears`).toBe(false);
      expect(run.html.includes(encodeURIComponent(value)), `${name} appears URL-encoded`).toBe(false);
    }
    expect(run.html).toContain('$CONFORMANCE_API_KEY');
  });
});
