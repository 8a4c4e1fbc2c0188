/**
 * The Markdown a CI job shows for a run (the GitHub
 * Action appends it to `$GITHUB_STEP_SUMMARY`): the verdict, the counts, and each failed check.
 */
import type { CheckResult, Report } from '../../conformance/core/types.ts';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function failureRow(result: CheckResult): string {
  const fix = result.hint ? ` ${result.hint}` : '';
  return `| \`${result.id}\` | ${cell(result.title)} | ${cell(`${result.actual}.${fix}`)} |`;
}

export function jobSummary(report: Report): string {
  const { summary, spec, target } = report;
  const mark = summary.verdict === 'pass' ? '✅' : summary.verdict === 'not judged' ? '⚠️' : '❌';
  const failed = report.results.filter((r) => r.status === 'fail');
  return [
    `## ${mark} API conformance: ${summary.verdict}`,
    '',
    `${target.baseUrl} against API version ${spec.version}` +
      ` (profile ${target.profile}${target.strict ? ', strict' : ''}; ${report.tool.name} ${report.tool.version})`,
    '',
    '| pass | fail | required failures | advisory | skip | not judged |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${summary.pass} | ${summary.fail} | ${summary.requiredFailures} | ${summary.advisory} | ${summary.skip} | ${summary['not-judged']} |`,
    ...(report.unreachable ? ['', `**Could not judge the deployment:** ${cell(report.unreachable)}`] : []),
    ...(failed.length > 0
      ? ['', '| check | requirement | what happened |', '| --- | --- | --- |', ...failed.map(failureRow)]
      : []),
    '',
  ].join('\n');
}
