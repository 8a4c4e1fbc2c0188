/** Formats a comparison: plain text for a terminal, Markdown for a pull-request comment, JSON for tools. */
import type { Classification, ClassifiedChange, SpecDiff, Verdict } from './types.ts';

export const FORMATS = ['text', 'markdown', 'json'] as const;
export type ReportFormat = (typeof FORMATS)[number];

const SECTIONS: { classification: Classification; title: string; mark: string; note: string }[] = [
  {
    classification: 'breaking',
    title: 'Breaking',
    mark: '✖',
    note: 'a client written against the base spec can fail',
  },
  { classification: 'non-breaking', title: 'Non-breaking', mark: '+', note: 'existing clients keep working' },
  {
    classification: 'annotation',
    title: 'Annotation only',
    mark: '·',
    note: 'descriptions, examples, metadata',
  },
];

const HEADLINES: Record<Verdict, string> = {
  breaking: 'BREAKING: HEAD breaks clients of BASE',
  'non-breaking': 'not breaking',
  'annotation-only': 'not breaking (annotation-only changes)',
  'no-changes': 'no changes',
};

export function formatReport(diff: SpecDiff, format: ReportFormat): string {
  if (format === 'json') return JSON.stringify({ ok: true, data: diff }, null, 2);
  return format === 'markdown' ? formatMarkdown(diff) : formatText(diff);
}

export function formatText(diff: SpecDiff): string {
  const lines = [
    `spec:diff ${diff.base} → ${diff.head}`,
    `Verdict: ${HEADLINES[diff.verdict]}. ${tally(diff)}`,
  ];
  for (const section of SECTIONS) {
    const changes = diff.changes.filter((change) => change.classification === section.classification);
    if (changes.length === 0) continue;
    lines.push('', `${section.title} (${changes.length}): ${section.note}`);
    for (const change of changes) {
      lines.push(`  ${section.mark} ${placeOf(change)}`);
      lines.push(`      ${change.message}${change.rule ? ` [${change.rule}]` : ''}`);
      const source = sourceOf(change);
      if (source) lines.push(`      ${source}`);
    }
  }
  return lines.join('\n');
}

export function formatMarkdown(diff: SpecDiff): string {
  const icon = diff.verdict === 'breaking' ? '❌' : '✅';
  const lines = [
    `## Spec diff: ${icon} ${HEADLINES[diff.verdict]}`,
    '',
    `\`${cell(diff.base)}\` → \`${cell(diff.head)}\`: ${tally(diff, true)}`,
  ];
  for (const section of SECTIONS) {
    const changes = diff.changes.filter((change) => change.classification === section.classification);
    if (changes.length === 0) continue;
    const table = [
      '| Where | Change | Rule | Source |',
      '| --- | --- | --- | --- |',
      ...changes.map(
        (change) =>
          `| \`${cell(placeOf(change))}\` | ${cell(change.message)} | ${change.rule ? `\`${cell(change.rule)}\`` : ''} | ${sourceOf(change) ? `\`${cell(sourceOf(change) ?? '')}\`` : ''} |`,
      ),
    ];
    const heading = `${section.title} (${changes.length}): ${section.note}`;
    if (section.classification === 'annotation') {
      lines.push('', `<details><summary>${heading}</summary>`, '', ...table, '', '</details>');
    } else {
      lines.push('', `### ${section.classification === 'breaking' ? '❌ ' : ''}${heading}`, '', ...table);
    }
  }
  return lines.join('\n');
}

function tally(diff: SpecDiff, bold = false): string {
  const breaking = `${diff.counts.breaking} breaking`;
  return [
    bold && diff.counts.breaking > 0 ? `**${breaking}**` : breaking,
    `${diff.counts['non-breaking']} non-breaking`,
    `${diff.counts.annotation} annotation-only`,
  ]
    .join(', ')
    .replace(/^/, 'Changes: ')
    .concat('.');
}

/** `where` plus the changed key; `key` is how the engine names a renamed map entry, which says nothing. */
function placeOf(change: ClassifiedChange): string {
  return change.property && change.property !== 'key' ? `${change.where} · ${change.property}` : change.where;
}

function sourceOf(change: ClassifiedChange): string | undefined {
  const { base, head } = change;
  const pointer = (base ?? head)?.pointer;
  const sides = [base && `${base.file}:${base.line}`, head && `${head.file}:${head.line}`].filter(Boolean);
  if (sides.length === 0) return undefined;
  return `${sides.join(' → ')} (${pointer})`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
}
