/**
 * The job summary escapes what it shows: a deployment's answer or a URL holding HTML or Markdown
 * renders as that text (rendered here with a GitHub-flavoured Markdown parser), and a run that
 * wrote no report shows what it printed in a block no line of it can close.
 */
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import type { CheckResult, Report } from '../core/report-model.ts';
import { jobSummary, notRunSummary } from '../reporters/job-summary.ts';

const HOSTILE = '<img src=x onerror=alert(1)> **bold** [link](https://evil.example) | a `tick` _x_ <script>';

function reportWith(actual: string, baseUrl: string): Report {
  const failed: CheckResult = {
    id: 'COLLECTION-003',
    section: '§4.2',
    title: 'limit=1 returns exactly one walk',
    area: 'walks-list',
    level: 'required',
    effectiveLevel: 'required',
    drift: false,
    status: 'fail',
    expected: 'one walk',
    actual,
    hint: 'Honour <limit>.',
    durationMs: 1,
  };
  return {
    tool: { name: 'canvassing-conformance', version: '1.0.0-beta' },
    spec: { path: 'spec/openapi.yaml', version: '1.0.0-beta', sha256: 'x' },
    target: { baseUrl, profile: 'live', strict: false, embedded: false },
    startedAt: '2026-11-27T00:00:00.000Z',
    durationMs: 10,
    requests: { sent: 1, budget: 1500, memoized: 0 },
    summary: {
      total: 1,
      pass: 0,
      fail: 1,
      skip: 0,
      advisory: 0,
      'not-judged': 0,
      requiredNotJudged: 0,
      requiredFailures: 1,
      expectedFailures: 0,
      fixedExpectedFailures: 0,
      verdict: 'fail',
    },
    results: [failed],
    drift: { judged: 0, findings: [], omitted: 0 },
    unreachable: HOSTILE,
  } as Report;
}

/** Every HTML element the rendered summary holds. */
const elementsOf = (html: string) => new Set([...html.matchAll(/<([a-z][a-z0-9]*)/g)].map((m) => m[1]));

describe('the job summary', () => {
  it('shows hostile text as text: no element, link or emphasis of its own', async () => {
    const markdown = jobSummary(reportWith(HOSTILE, `https://staging.example/<b>gw</b>`));
    const html = await marked.parse(markdown, { gfm: true });
    expect([...elementsOf(html)].sort()).toEqual(
      ['h2', 'p', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'code'].sort(),
    );
    // The one <strong> is the summary's own label; the hostile text is there, as text.
    expect(html.match(/<strong>/g)).toHaveLength(1);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; **bold** [link](https://evil.example)');
    // The table keeps its three columns: a | in the text does not open a fourth.
    expect(html.match(/<td>/g)).toHaveLength(3);
  });

  it('a run with no report: its lines in a block no backtick fence in them closes', async () => {
    const said = 'conformance: --rate-limit must be a rate\n```\n<img src=x onerror=alert(1)>\n````';
    const html = await marked.parse(notRunSummary(said), { gfm: true });
    expect([...elementsOf(html)].sort()).toEqual(['code', 'h2', 'pre']);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(notRunSummary('')).toContain('canvassing-conformance did not run.');
  });
});
