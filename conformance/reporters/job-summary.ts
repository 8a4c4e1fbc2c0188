/**
 * The Markdown a CI job shows for a run (the GitHub Action appends it to `$GITHUB_STEP_SUMMARY`):
 * the verdict, the counts, and each failed check. Everything a report holds is text from outside
 * (a deployment's answers, a tester's URL): it is escaped, never pasted, so no HTML or Markdown of
 * a target's reaches the page.
 */
import type { CheckResult, Report } from '../core/report-model.ts';

/**
 * Characters Markdown (GitHub's) would read as markup, each escaped as the spec allows; `:` too,
 * so a URL in a target's answer is not made a link.
 */
const MARKUP = /[\\`*_{}[\]()#+!|~:]/g;

/** Text for a Markdown line or table cell: markup escaped, HTML as entities, one line. */
function markdownText(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(MARKUP, '\\$&');
}

/** Text shown as it is, in a fenced block no line of it can close. */
function codeBlock(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text.replace(/\n$/, '')}\n${fence}`;
}

function failureRow(result: CheckResult): string {
  const fix = result.hint ? ` ${result.hint}` : '';
  return `| \`${result.id.replace(/`/g, '')}\` | ${markdownText(result.title)} | ${markdownText(`${result.actual}.${fix}`)} |`;
}

export function jobSummary(report: Report): string {
  const { summary, spec, target } = report;
  const mark = summary.verdict === 'pass' ? '✅' : summary.verdict === 'not judged' ? '⚠️' : '❌';
  const failed = report.results.filter((r) => r.status === 'fail');
  return [
    `## ${mark} API conformance: ${markdownText(summary.verdict)}`,
    '',
    markdownText(
      `${target.baseUrl} against API version ${spec.version}` +
        ` (profile ${target.profile}${target.strict ? ', strict' : ''}; ${report.tool.name} ${report.tool.version})`,
    ),
    '',
    '| pass | fail | required failures | advisory | skip | not judged |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${summary.pass} | ${summary.fail} | ${summary.requiredFailures} | ${summary.advisory} | ${summary.skip} | ${summary['not-judged']} |`,
    ...(report.unreachable
      ? ['', `**Could not judge the deployment:** ${markdownText(report.unreachable)}`]
      : []),
    ...(failed.length > 0
      ? ['', '| check | requirement | what happened |', '| --- | --- | --- |', ...failed.map(failureRow)]
      : []),
    '',
  ].join('\n');
}

/** When no report was written (the configuration was refused): what the run said, as it said it. */
export function notRunSummary(said: string): string {
  const lines = said.trim().split('\n').slice(-20).join('\n');
  return [
    '## ⚠️ API conformance: could not judge the deployment',
    '',
    codeBlock(lines === '' ? 'canvassing-conformance did not run.' : lines),
    '',
  ].join('\n');
}
