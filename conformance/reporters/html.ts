/**
 * One self-contained HTML page QA can attach to a build: the verdict, what changed since a previous
 * report, the failures with their curl reproductions, the expected failures, the drift, the
 * advisories, the coverage (seed, sample, statuses, records per requirement, gaps) and every result
 * per area. Inline CSS only, no script, and a Content-Security-Policy
 * that forbids loading anything, so the page never reaches the network.
 */
import { RESULT_CLASSES } from '../../spec/facts.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { AREAS, type CheckChange, type DriftFinding } from '../core/report-model.ts';
import { answers, coverageHeadline, groupDrift, judgedText, runText, specJudged } from './sections.ts';

export function htmlReport(report: Report): string {
  const { target, summary } = report;
  const where = target.embedded ? `${target.baseUrl} (embedded reference server)` : target.baseUrl;
  const body = report.unreachable
    ? [
        section(
          'unreachable',
          'Not judged',
          `<p class="bad">${esc(report.unreachable)}</p><p>No check was run: the run could not judge the deployment (exit status 2).</p>`,
        ),
      ]
    : [
        tiles(report),
        comparisonSection(report),
        failuresSection(report),
        securitySection(report),
        expectationsSection(report),
        driftSection(report),
        advisoriesSection(report),
        coverageSection(report),
        resultsSection(report),
      ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance ${esc(summary.verdict.toUpperCase())} — ${esc(target.baseUrl)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Canvassing Read API conformance <span class="verdict ${summary.verdict.replace(' ', '-')}">${summary.verdict.toUpperCase()}</span></h1>
<p class="target">${esc(where)}</p>
${reachLines(report)}
<p class="meta">${esc(runText(report))} · ${(report.durationMs / 1000).toFixed(1)} s · started ${esc(report.startedAt)} · ${esc(report.tool.name)} ${esc(report.tool.version)}</p>
${
  report.coverage
    ? `<p class="meta">${esc(coverageHeadline(report.coverage))}</p>
`
    : ''
}<p class="meta">${report.unreachable ? `not judged: ${esc(report.unreachable.split('\n')[0] ?? '')}` : `${summary.requiredFailures} required check(s) failed`}${report.expectations ? ` · ${summary.expectedFailures} expected failure(s) · ${summary.fixedExpectedFailures} expected failure(s) no longer failing` : ''}</p>
</header>
<main>
${body.filter(Boolean).join('\n')}
</main>
</body>
</html>
`;
}

/** How the target was reached (proxy, CA, client certificate, header names) and whether TLS was verified. */
function reachLines(report: Report): string {
  const reach = report.target.reach;
  if (!reach) return '';
  const parts = [
    reach.proxy ? `through proxy ${reach.proxy}` : '',
    reach.caFile ? `CA file ${reach.caFile}` : '',
    reach.clientCert ? `client certificate ${reach.clientCert}` : '',
    reach.headers ? `headers ${reach.headers.join(', ')} (values not shown)` : '',
  ].filter(Boolean);
  const insecure = reach.insecure
    ? '<p class="meta bad"><b>--insecure: TLS certificates were not verified.</b></p>\n'
    : '';
  return `${parts.length > 0 ? `<p class="meta">${esc(parts.join(' · '))}</p>\n` : ''}${insecure}`;
}

function tiles(report: Report): string {
  const { summary } = report;
  const tile = (label: string, value: number, cls: string) =>
    `<div class="tile ${value > 0 ? cls : ''}"><b>${value}</b><span>${esc(label)}</span></div>`;
  const items = [
    tile('passed', summary.pass, 'good'),
    tile('failed', summary.fail - summary.expectedFailures, 'bad'),
    tile('advisory', summary.advisory, 'note'),
    tile('skipped', summary.skip, ''),
    tile('not judged', summary['not-judged'], ''),
    tile('drift findings', report.drift.findings.length + report.drift.omitted, 'note'),
  ];
  if (report.expectations) {
    items.push(tile('expected failures', summary.expectedFailures, 'note'));
    items.push(tile('no longer failing', summary.fixedExpectedFailures, 'bad'));
  }
  const links = [
    ['since', report.comparison],
    ['failures', true],
    ['expected-failures', report.expectations],
    ['drift', true],
    ['advisories', true],
    ['results', true],
  ]
    .filter(([, shown]) => shown)
    .map(([id]) => `<a href="#${id as string}">${(id as string).replace('-', ' ')}</a>`)
    .join(' · ');
  return `<div class="tiles">${items.join('')}</div><nav>${links}</nav>`;
}

function comparisonSection(report: Report): string {
  const c = report.comparison;
  if (!c) return '';
  const when = [c.previous.startedAt, c.previous.baseUrl].filter(Boolean).join(', ');
  const changes = (label: string, list: CheckChange[], cls: string) =>
    list.length === 0
      ? ''
      : `<h3>${esc(label)} (${list.length})</h3><table class="changes"><tr><th>check</th><th>now</th><th>before</th></tr>${list
          .map(
            (ch) =>
              `<tr class="${cls}"><td><b>${esc(ch.id)}</b> ${esc(ch.title)}</td><td>${esc(ch.actual)}</td><td>${esc(ch.wasActual ?? (ch.was === 'absent' ? 'new check' : ch.was))}</td></tr>`,
          )
          .join('')}</table>`;
  const drift = (label: string, list: DriftFinding[], cls: string) =>
    list.length === 0
      ? ''
      : `<h3>${esc(label)} (${list.length})</h3><ul class="${cls}">${list
          .map(
            (f) =>
              `<li><code>${esc(`${f.operationId} ${f.status} ${f.where}`)}</code> ${esc(f.message)}</li>`,
          )
          .join('')}</ul>`;
  const total =
    c.newlyFailing.length +
    c.newlyPassing.length +
    c.newAdvisories.length +
    c.newDrift.length +
    c.goneDrift.length;
  const parts = [
    `<p>Compared with <code>${esc(c.previous.file)}</code>${when ? ` (${esc(when)})` : ''}.</p>`,
    c.previous.unreachable
      ? `<p>The previous run could not reach its target: ${esc(c.previous.unreachable)}</p>`
      : '',
    total === 0 ? '<p class="good">Nothing changed.</p>' : '',
    changes('Newly failing', c.newlyFailing, 'bad'),
    changes('Newly passing', c.newlyPassing, 'good'),
    changes('New advisories', c.newAdvisories, 'note'),
    drift('New drift', c.newDrift, 'bad'),
    drift('Drift gone', c.goneDrift, 'good'),
    c.driftCompared ? '' : '<p>Drift not compared: the previous report has no drift section.</p>',
    c.stillFailing.length ? `<p>Still failing: ${esc(c.stillFailing.join(', '))}</p>` : '',
  ];
  return section('since', 'Since the previous report', parts.join(''));
}

function failuresSection(report: Report): string {
  const failures = report.results.filter(
    (r) => r.status === 'fail' && r.expectedFailure?.state !== 'failing',
  );
  if (failures.length === 0) return section('failures', 'Failures', '<p class="good">No check failed.</p>');
  return section(
    'failures',
    `Failures (${failures.length})`,
    failures.map((r) => failureCard(r, 'bad')).join(''),
  );
}

function failureCard(r: CheckResult, cls: string, extra = ''): string {
  const rows: [string, string][] = [
    ['expected', esc(r.expected)],
    ['actual', esc(r.actual)],
  ];
  if (r.hint) rows.push(['hint', esc(r.hint)]);
  if (r.drift) rows.push(['details', 'every difference is listed under <a href="#drift">drift</a>']);
  else if (r.details && r.details.length > 1) {
    const beyond =
      r.findings === undefined
        ? ''
        : `<li>… and ${r.findings - r.details.length} more: the JSON report lists every one</li>`;
    rows.push(['details', `<ul>${r.details.map((d) => `<li>${esc(d)}</li>`).join('')}${beyond}</ul>`]);
  }
  if (r.response) {
    rows.push([
      'answer',
      `${r.response.status} ${esc(r.response.contentType ?? 'no content type')}${r.response.body ? `<pre>${esc(r.response.body)}</pre>` : ' (empty body)'}`,
    ]);
  }
  if (r.request) rows.push(['reproduce', `<pre class="curl">${esc(r.request.curl)}</pre>`]);
  return `<article class="card ${cls}" id="check-${esc(r.id)}"><h3>${esc(r.id)} <small>[${esc(r.effectiveLevel)}, ${esc(r.section)}]</small> ${esc(r.title)}</h3>${extra}<dl>${rows
    .map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`)
    .join('')}</dl></article>`;
}

function expectationsSection(report: Report): string {
  const e = report.expectations;
  if (!e) return '';
  const byId = new Map(report.results.map((r) => [r.id, r]));
  const parts: string[] = [
    `<p>From <code>${esc(e.file)}</code>: listed failures are reported but do not fail the run; a listed check that passes fails it.</p>`,
  ];
  for (const entry of e.entries.filter((x) => x.state === 'fixed')) {
    const r = byId.get(entry.id);
    parts.push(
      `<article class="card bad"><h3>${esc(entry.id)} ${esc(r?.title ?? '')}</h3><p><b>Passed, but listed as an expected failure: remove the entry.</b> It was listed because: ${esc(entry.reason)}</p></article>`,
    );
  }
  for (const entry of e.entries.filter((x) => x.state === 'failing')) {
    const r = byId.get(entry.id);
    if (r) parts.push(failureCard(r, 'note', `<p class="reason">Expected: ${esc(entry.reason)}</p>`));
  }
  const notRun = e.entries.filter((x) => x.state === 'not-run');
  if (notRun.length > 0) {
    parts.push(
      `<h3>Listed but not run</h3><ul>${notRun
        .map((entry) => {
          const r = byId.get(entry.id);
          return `<li><b>${esc(entry.id)}</b> ${esc(r ? `${r.status}: ${r.reason ?? ''}` : 'not selected')} — ${esc(entry.reason)}</li>`;
        })
        .join('')}</ul>`,
    );
  }
  return section('expected-failures', `Expected failures (${e.entries.length})`, parts.join(''));
}

function driftSection(report: Report): string {
  const { drift } = report;
  if (drift.findings.length === 0) {
    return section(
      'drift',
      'Drift',
      `<p class="good">None: the ${drift.judged} answers of documented operations match ${esc(specJudged(report))}.</p>`,
    );
  }
  const groups = groupDrift(drift.findings).map(
    (g) =>
      `<h3><code>${esc(`${g.method} ${g.path}`)}</code> ${esc(g.operationId)} → ${g.status}</h3><table><tr><th>kind</th><th>where</th><th>difference</th><th>answers</th><th>judged by</th></tr>${g.findings
        .map(
          (f) =>
            `<tr><td>${esc(f.kind)}</td><td><code>${esc(f.where)}</code></td><td>${esc(f.message)}<details><summary>reproduce</summary><pre class="curl">${esc(f.example.curl)}</pre></details></td><td class="num">${esc(answers(f))}</td><td>${esc(f.check)}</td></tr>`,
        )
        .join('')}</table>`,
  );
  const omitted = drift.omitted > 0 ? `<p>… and ${drift.omitted} more difference(s), left out.</p>` : '';
  return section(
    'drift',
    `Drift (${drift.findings.length + drift.omitted})`,
    `<p>Every difference of the ${drift.judged} answers of documented operations from ${esc(specJudged(report))}, once each, grouped by operation and status.${report.target.strict ? '' : ' Undocumented fields, statuses and content types fail the run only under --strict.'}</p>${groups.join('')}${omitted}`,
  );
}

function advisoriesSection(report: Report): string {
  const advisories = report.results.filter((r) => r.status === 'advisory');
  if (advisories.length === 0) return section('advisories', 'Advisories', '<p>None.</p>');
  return section(
    'advisories',
    `Advisories (${advisories.length})`,
    `<p>What this deployment decided where the written spec is silent (spec/DECISIONS.md), and drift unless --strict. They never fail the run.</p><table><tr><th>check</th><th>this deployment</th><th>project decision</th></tr>${advisories
      .map(
        (r) =>
          `<tr><td><b>${esc(r.id)}</b> ${esc(r.title)}${r.decision ? ` <small>${esc(r.decision)}</small>` : ''}</td><td>${esc(r.actual)}</td><td>${r.drift ? 'see <a href="#drift">drift</a>' : esc(r.expected)}</td></tr>`,
      )
      .join('')}</table>`,
  );
}

function resultsSection(report: Report): string {
  const areas = AREAS.filter((area) => report.results.some((r) => r.area === area)).map((area) => {
    const results = report.results.filter((r) => r.area === area);
    const counts = RESULT_CLASSES.map((s) => [s, results.filter((r) => r.status === s).length] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `<span class="badge ${s}">${n} ${s}</span>`)
      .join(' ');
    const rows = results
      .map((r) => {
        const status = !r.expectedFailure
          ? r.status
          : r.expectedFailure.state === 'failing'
            ? 'expected failure'
            : r.expectedFailure.state === 'fixed'
              ? `${r.status}, but listed as an expected failure`
              : `${r.status} (listed as an expected failure)`;
        const text = r.status === 'skip' || r.status === 'not-judged' ? (r.reason ?? r.actual) : r.actual;
        return `<tr><td class="nowrap"><b>${esc(r.id)}</b></td><td class="nowrap">${esc(r.section)}</td><td>${esc(r.title)}</td><td class="nowrap">${esc(r.effectiveLevel)}</td><td class="nowrap"><span class="badge ${r.expectedFailure?.state === 'failing' ? 'advisory' : r.status}">${esc(status)}</span></td><td>${esc(text)}</td></tr>`;
      })
      .join('');
    return `<h3>${esc(area)} ${counts}</h3><table><tr><th>id</th><th>§</th><th>requirement</th><th>level</th><th>status</th><th>what came back</th></tr>${rows}</table>`;
  });
  return section('results', 'Results per area and requirement', areas.join(''));
}

function coverageSection(report: Report): string {
  const coverage = report.coverage;
  if (!coverage) return '';
  const operations = coverage.operations
    .map((o) => {
      const cells = [
        ...o.statuses.map(
          (s) =>
            `<td class="${s.observed > 0 ? 'good' : ''}">${esc(s.status)} ${s.observed > 0 ? `✓ ${s.observed}` : '– not observed'}</td>`,
        ),
        ...o.undocumented.map((s) => `<td class="bad">${esc(s.status)} undocumented ✗ ${s.observed}</td>`),
      ];
      return `<tr><th>${esc(`${o.method} ${o.path}`)} <small>${esc(o.operationId)}</small></th>${cells.join('')}</tr>`;
    })
    .join('');
  const requirements = coverage.requirements
    .filter((r) => r.records > 0)
    .map((r) => `<tr><td><b>${esc(r.id)}</b></td><td>${esc(judgedText(r))}</td></tr>`)
    .join('');
  const gaps =
    coverage.gaps.length === 0
      ? '<p class="good">Nothing left uncovered: every selected check ran on what it needed.</p>'
      : `<ul>${coverage.gaps.map((g) => `<li>${esc(g)}</li>`).join('')}</ul>`;
  return section(
    'coverage',
    'Coverage',
    `<p>${esc(coverageHeadline(coverage))}.</p><h3>Documented statuses observed</h3><table>${operations}</table><h3>Judged per requirement</h3><table><tr><th>requirement</th><th>judged</th></tr>${requirements}</table><h3>Not covered</h3>${gaps}`,
  );
}

/** The checks by OWASP API Security Top 10 (2023) category, and how each category fared. */
function securitySection(report: Report): string {
  if (!report.security) return '';
  const rows = report.security
    .map((c) => {
      const status = c.status === 'fail' ? `FAIL: ${c.failed.join(', ')}` : c.status;
      const tone = c.status === 'fail' ? 'bad' : c.status === 'pass' ? 'good' : '';
      return `<tr><td><b>${esc(c.id)}</b></td><td>${esc(c.name)}</td><td class="${tone}">${esc(status)}</td><td>${esc(c.checks.join(', '))}</td></tr>`;
    })
    .join('');
  return section(
    'security',
    'Security view (OWASP API Security Top 10, 2023)',
    `<table><tr><th>category</th><th>risk</th><th>status</th><th>checks</th></tr>${rows}</table>`,
  );
}

function section(id: string, title: string, html: string): string {
  return `<section id="${id}"><h2>${esc(title)}</h2>${html}</section>`;
}

/** Escapes text for HTML content and attribute values. */
function esc(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
:root { color-scheme: light; --bad: #b42318; --bad-bg: #fef3f2; --good: #067647; --good-bg: #ecfdf3; --note: #b54708; --note-bg: #fffaeb; --line: #d0d5dd; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #101828; background: #f9fafb; }
header { padding: 20px 32px 12px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 6px; font-size: 22px; }
h2 { margin: 28px 0 10px; font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { margin: 16px 0 6px; font-size: 15px; }
main { padding: 0 32px 40px; max-width: 1400px; }
.target { margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; }
.meta { margin: 2px 0; color: #475467; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 6px; color: #fff; font-size: 16px; vertical-align: middle; }
.verdict.pass { background: var(--good); } .verdict.fail { background: var(--bad); } .verdict.not-judged { background: #6a737d; }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0 8px; }
.tile { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 110px; }
.tile b { display: block; font-size: 22px; } .tile span { color: #475467; }
.tile.bad { border-color: var(--bad); background: var(--bad-bg); } .tile.good { border-color: var(--good); background: var(--good-bg); } .tile.note { border-color: var(--note); background: var(--note-bg); }
nav a { color: #175cd3; }
table { width: 100%; border-collapse: collapse; background: #fff; margin: 4px 0 12px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #f2f4f7; font-weight: 600; } td.num, td.nowrap { white-space: nowrap; }
table.changes td:first-child { width: 34%; } table.changes td:last-child { width: 30%; }
tr.bad td:first-child { border-left: 4px solid var(--bad); } tr.good td:first-child { border-left: 4px solid var(--good); } tr.note td:first-child { border-left: 4px solid var(--note); }
ul.bad li { color: var(--bad); } ul.good li { color: var(--good); }
.card { background: #fff; border: 1px solid var(--line); border-left: 5px solid var(--line); border-radius: 6px; padding: 8px 14px; margin: 10px 0; }
.card.bad { border-left-color: var(--bad); } .card.note { border-left-color: var(--note); }
.card h3 { margin-top: 4px; } .card small { color: #475467; font-weight: normal; }
dl { display: grid; grid-template-columns: 90px 1fr; gap: 4px 12px; margin: 0; } dt { color: #475467; } dd { margin: 0; overflow-wrap: anywhere; }
pre { margin: 4px 0; padding: 6px 8px; background: #f2f4f7; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
code { font: 12px ui-monospace, Menlo, Consolas, monospace; }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 12px; font-weight: 600; background: #eaecf0; }
.badge.pass { background: var(--good-bg); color: var(--good); } .badge.fail { background: var(--bad-bg); color: var(--bad); } .badge.advisory { background: var(--note-bg); color: var(--note); }
p.good { color: var(--good); } p.bad { color: var(--bad); } .reason { color: var(--note); font-weight: 600; }
details summary { cursor: pointer; color: #475467; font-size: 12px; }
@media print { details { display: block; } body { background: #fff; } }
`;
