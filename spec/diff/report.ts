/**
 * Formats the gate's result: plain text for a terminal, Markdown to paste into a pull request,
 * JSON for tools. Every change says what a client sees, where it sits in the old and the new
 * spec, and the rule that classed it.
 */
import { placeOf } from './change-id.ts';
import type { Acknowledgement, Classification, ClassifiedChange, GateResult, Verdict } from './types.ts';

export const FORMATS = ['text', 'markdown', 'json'] as const;
export type ReportFormat = (typeof FORMATS)[number];

interface Section {
  title: string;
  mark: string;
  note: string;
  changes: ClassifiedChange[];
  classification: Classification;
  accepted?: boolean;
}

const HEADLINES: Record<Verdict, string> = {
  breaking: 'BREAKING: the new spec breaks clients of the old spec',
  'non-breaking': 'not breaking',
  'annotation-only': 'not breaking (annotation-only changes)',
  'no-changes': 'no changes',
};

export function formatReport(result: GateResult, format: ReportFormat): string {
  if (format === 'json') return JSON.stringify({ ok: true, data: result }, null, 2);
  return format === 'markdown' ? formatMarkdown(result) : formatText(result);
}

function sectionsOf(result: GateResult): Section[] {
  const of = (classification: Classification) =>
    result.changes.filter((c) => c.classification === classification);
  const breaking = of('breaking');
  const note = 'a client written against the old spec can fail';
  const sections: Section[] = [
    {
      classification: 'breaking',
      title: 'Breaking, not accepted',
      mark: '✖',
      note,
      changes: breaking.filter((c) => !result.accepted[c.id]),
    },
    {
      classification: 'breaking',
      title: 'Breaking, accepted',
      mark: '✔',
      note: `acknowledged in ${result.acknowledgements ?? 'the acknowledgement file'}`,
      changes: breaking.filter((c) => result.accepted[c.id]),
      accepted: true,
    },
    {
      classification: 'non-breaking',
      title: 'Non-breaking',
      mark: '+',
      note: 'existing clients keep working',
      changes: of('non-breaking'),
    },
    {
      classification: 'annotation',
      title: 'Annotation only',
      mark: '·',
      note: 'descriptions, examples, metadata',
      changes: of('annotation'),
    },
  ];
  return sections.filter((section) => section.changes.length > 0);
}

/** One line: why the gate passes or fails. */
export function gateLine(result: GateResult): string {
  const open = result.changes.filter((c) => c.classification === 'breaking' && !result.accepted[c.id]).length;
  const reasons = [
    open > 0 ? `${open} breaking change${open === 1 ? '' : 's'} not accepted` : '',
    result.problems.length > 0
      ? `${result.problems.length} acknowledgement${result.problems.length === 1 ? '' : 's'} stale or expired`
      : '',
  ].filter(Boolean);
  if (reasons.length > 0) return `FAIL: ${reasons.join(', ')}`;
  const accepted = Object.keys(result.accepted).length;
  return accepted > 0 ? `PASS: every breaking change is accepted (${accepted})` : 'PASS';
}

export function formatText(result: GateResult): string {
  const lines = [
    `spec:diff old spec ${sideName(result.base, result.baseVersion)} → new spec ${sideName(result.head, result.headVersion)}`,
    `Verdict: ${HEADLINES[result.verdict]}. ${tally(result)}`,
    `Gate: ${gateLine(result)}.`,
  ];
  for (const section of sectionsOf(result)) {
    lines.push('', `${section.title} (${section.changes.length}): ${section.note}`);
    for (const change of section.changes) {
      lines.push(`  ${section.mark} ${placeOf(change)}`, `      ${change.impact}`);
      lines.push(`      ${change.message} [${change.rule}]`);
      const source = sourceOf(change);
      if (source) lines.push(`      ${source}`);
      if (change.classification === 'breaking') lines.push(`      id: ${change.id}`);
      const entry = result.accepted[change.id];
      if (entry) lines.push(`      accepted: ${entry.reason} (${endText(entry)})`);
    }
  }
  if (result.problems.length > 0) {
    lines.push('', `Acknowledgements that fail the gate (${result.problems.length}):`);
    for (const problem of result.problems)
      lines.push(`  ✖ ${problem.id}`, `      ${problem.problem}: ${problem.message}`);
  }
  return lines.join('\n');
}

export function formatMarkdown(result: GateResult): string {
  const pass = result.gate === 'pass';
  const lines = [
    `## Spec diff: ${pass ? '✅' : '❌'} ${HEADLINES[result.verdict]}`,
    '',
    `Old spec \`${cell(sideName(result.base, result.baseVersion))}\` → new spec \`${cell(sideName(result.head, result.headVersion))}\`. ${tally(result, true)}`,
    '',
    `**Gate: ${gateLine(result)}.**`,
  ];
  for (const section of sectionsOf(result)) lines.push('', ...markdownSection(section, result));
  if (result.problems.length > 0) {
    lines.push('', `### ❌ Acknowledgements that fail the gate (${result.problems.length})`, '');
    lines.push('| Entry | Problem |', '| --- | --- |');
    for (const p of result.problems) lines.push(`| \`${cell(p.id)}\` | ${p.problem}: ${cell(p.message)} |`);
  }
  const open = result.changes.filter((c) => c.classification === 'breaking' && !result.accepted[c.id]);
  if (open.length > 0) lines.push('', ...acceptanceSnippet(open, result.acknowledgements));
  return lines.join('\n');
}

function markdownSection(section: Section, result: GateResult): string[] {
  const heading = `${section.title} (${section.changes.length}): ${section.note}`;
  const extra = section.accepted ? ' Reason | Ends |' : '';
  const table = [
    `| What a client sees | Where | Rule | Old spec | New spec |${extra}`,
    `| --- | --- | --- | --- | --- |${section.accepted ? ' --- | --- |' : ''}`,
    ...section.changes.map((change) => {
      const entry = result.accepted[change.id];
      const tail = entry ? ` ${cell(entry.reason)} | ${endText(entry)} |` : '';
      return `| ${cell(change.impact)} | \`${cell(placeOf(change))}\` | \`${cell(change.rule)}\` | ${side(change.base)} | ${side(change.head)} |${tail}`;
    }),
  ];
  if (section.classification === 'annotation') {
    return [`<details><summary>${heading}</summary>`, '', ...table, '', '</details>'];
  }
  const mark = section.classification === 'breaking' ? (section.accepted ? '✔ ' : '❌ ') : '';
  return [`### ${mark}${heading}`, '', ...table];
}

/** Entries ready to paste into the acknowledgement file, one per break not yet accepted. */
function acceptanceSnippet(open: ClassifiedChange[], file = 'spec/accepted-changes.yaml'): string[] {
  return [
    `To accept a break the team has decided to make, add it to \`${file}\` under \`accepted:\`:`,
    '',
    '```yaml',
    ...open.flatMap((change) => [
      `  - id: ${JSON.stringify(change.id)}`,
      '    reason: "why clients can take this, and how they were told"',
      '    expires: "YYYY-MM-DD" # or spec-version: "the new spec\'s info.version"',
    ]),
    '```',
  ];
}

function tally(result: GateResult, bold = false): string {
  const accepted = Object.keys(result.accepted).length;
  const breaking = `${result.counts.breaking} breaking${accepted > 0 ? ` (${accepted} accepted)` : ''}`;
  const parts = [
    bold && result.counts.breaking > accepted ? `**${breaking}**` : breaking,
    `${result.counts['non-breaking']} non-breaking`,
    `${result.counts.annotation} annotation-only`,
  ];
  return `Changes: ${parts.join(', ')}.`;
}

function sideName(label: string, version: string): string {
  return version ? `${label} (${version})` : label;
}

function endText(entry: Acknowledgement): string {
  return entry.expires ? `expires ${entry.expires}` : `spec version ${entry.specVersion ?? '?'}`;
}

function sourceOf(change: ClassifiedChange): string | undefined {
  const { base, head } = change;
  const sides = [
    base && `old spec ${base.file}:${base.line}`,
    head && `new spec ${head.file}:${head.line}`,
  ].filter(Boolean);
  if (sides.length === 0) return undefined;
  const pointers = [...new Set([base?.pointer, head?.pointer].filter(Boolean))];
  return `${sides.join(' → ')} (${pointers.join(' → ')})`;
}

function side(location: ClassifiedChange['base']): string {
  return location
    ? `\`${cell(`${location.file}:${location.line}`)}\` <sub>\`${cell(location.pointer)}\`</sub>`
    : '—';
}

/** Text safe in a Markdown table cell. */
export function cell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
}
