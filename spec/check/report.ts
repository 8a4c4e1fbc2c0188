/** The verdict of `spec:check`: one line per part, then what to act on. Text, Markdown or JSON. */
import { cell, formatMarkdown } from '../diff/report.ts';
import type { CheckResult, PartName, PartResult, PartStatus } from './types.ts';

export const FORMATS = ['text', 'markdown', 'json'] as const;
export type CheckFormat = (typeof FORMATS)[number];

const TITLES: Record<PartName, string> = {
  lint: 'Lint',
  diff: 'Breaking changes',
  conformance: 'Reference server, strict',
};
const MARKS: Record<PartStatus, string> = { pass: '✔', fail: '✖', error: '!' };

export function verdictOf(parts: PartResult[]): CheckResult['verdict'] {
  if (parts.some((part) => part.status === 'error')) return 'error';
  return parts.every((part) => part.status === 'pass') ? 'pass' : 'fail';
}

export function formatCheck(result: CheckResult, format: CheckFormat): string {
  if (format === 'json') return JSON.stringify({ ok: true, data: result }, null, 2);
  return format === 'markdown' ? markdownOf(result) : textOf(result);
}

function verdictLine(result: CheckResult): string {
  const notPassing = result.parts.filter((part) => part.status !== 'pass').map((part) => part.name);
  const word = { pass: 'PASS', fail: 'FAIL', error: 'CANNOT JUDGE' }[result.verdict];
  return notPassing.length === 0
    ? `${word}: lint, diff and conformance all pass`
    : `${word}: ${notPassing.join(', ')}`;
}

function textOf(result: CheckResult): string {
  const width = Math.max(...Object.values(TITLES).map((title) => title.length));
  const lines = [
    `spec:check new spec ${result.spec} (${result.specVersion || 'unversioned'}) against ${result.baseRef}`,
    ...result.parts.map(
      (p) => `  ${MARKS[p.status]} ${TITLES[p.name].padEnd(width)}  ${p.status.padEnd(5)}  ${p.summary}`,
    ),
    `Verdict: ${verdictLine(result)}`,
  ];
  for (const part of result.parts) {
    if (part.details.length === 0) continue;
    lines.push('', `${TITLES[part.name]}:`, ...part.details.map((line) => `  ${line}`));
  }
  for (const part of result.parts) for (const report of part.reports ?? []) lines.push(`report: ${report}`);
  return lines.join('\n');
}

function markdownOf(result: CheckResult): string {
  const icon = { pass: '✅', fail: '❌', error: '⚠️' }[result.verdict];
  const lines = [
    `## Spec check: ${icon} ${verdictLine(result)}`,
    '',
    `New spec \`${result.spec}\` (${result.specVersion || 'unversioned'}) against \`${result.baseRef}\`.`,
    '',
    '| Part | Result | Summary |',
    '| --- | --- | --- |',
    ...result.parts.map((p) => `| ${TITLES[p.name]} | ${MARKS[p.status]} ${p.status} | ${cell(p.summary)} |`),
  ];
  for (const part of result.parts) {
    if (part.name === 'diff' && part.gate) {
      lines.push(
        '',
        formatMarkdown(part.gate)
          .replace(/^## /, '### ')
          .replace(/\n### /g, '\n#### '),
      );
    } else if (part.details.length > 0) {
      lines.push('', `### ${TITLES[part.name]}`, '', '```text', ...part.details, '```');
    }
  }
  return lines.join('\n');
}
