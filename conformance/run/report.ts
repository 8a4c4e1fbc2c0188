/**
 * The report of a run, live or recorded: the rules' results in report order, the summary and its
 * verdict, the coverage, the drift section and the security view, all derived from the tallies and
 * what the judge collected. A run that left required rules unjudged, with none contradicted, says
 * in one line why and what to change (`notJudgedLine`).
 */
import type { Rule } from '../core/rule.ts';
import type { SpecModel } from '../core/spec-model.ts';
import { sectionOf } from '../core/drift-analysis.ts';
import { securityView } from '../core/security-view.ts';
import { summarize } from '../core/summary.ts';
import { TOOL_NAME, VERSION } from '../core/tool.ts';
import type { Exchange } from '../core/exchange.ts';
import type { CheckResult, Coverage, OperationCoverage, Report } from '../core/report-model.ts';
import { isFinal, overCap } from '../core/exchange.ts';
import { isThrottled } from '../core/observation.ts';
import type { Judge } from './judge.ts';
import type { Tally } from './tally.ts';
import { resultOfTally } from './results.ts';

export interface ReportInput {
  spec: SpecModel;
  source: 'live' | 'traffic';
  strict: boolean;
  seed: number;
  tallies: readonly Tally[];
  judge?: Judge;
  skipped: readonly { rule: Rule; result: CheckResult }[];
  /** Rule ids in report order. */
  order: readonly string[];
  exchanges: readonly Exchange[];
  baseUrl: string;
  startedAt: Date;
  durationMs: number;
  requests: Report['requests'];
  timeoutMs?: number;
  sampled?: { n: number; of: number };
  /** For a rule that judges the sweeps: how many items they fetched, of how many were listed. */
  swept?: (rule: Rule) => { n: number; of: number } | undefined;
  target: Report['target'];
  unreachable?: string;
}

export function reportOf(input: ReportInput): Report {
  const byId = new Map<string, CheckResult>();
  for (const tally of input.tallies) {
    const result = resultOfTally(tally, input.strict, input.source);
    const swept = tally.rule.sweeps ? input.swept?.(tally.rule) : undefined;
    // Under --sample, a rule that judges the sweeps says how many of the listed items it judged.
    if (swept && result.judged && swept.n < swept.of && result.judged.records < swept.of)
      result.judged.of = swept.of;
    byId.set(tally.rule.id, result);
  }
  for (const { rule, result } of input.skipped) byId.set(rule.id, result);
  const results = input.order.flatMap((id) => {
    const result = byId.get(id);
    return result ? [result] : [];
  });
  const report: Report = {
    tool: { name: TOOL_NAME, version: VERSION },
    spec: input.spec.identity,
    target: input.target,
    startedAt: input.startedAt.toISOString(),
    durationMs: input.durationMs,
    requests: input.requests,
    summary: summarize(results),
    results,
    drift:
      input.judge && !input.unreachable
        ? sectionOf(input.judge.drift.observations(), input.judge.documentedAnswers)
        : { judged: 0, findings: [], omitted: 0 },
    coverage: coverageOf(input, results),
    security: securityView(results),
  };
  const cut = input.exchanges.filter((e) => overCap(e.error));
  if (cut.length > 0)
    report.overCap = cut.map((e) => `${e.request.method} ${e.request.url}: ${e.error?.message ?? ''}`);
  if (input.unreachable) {
    report.unreachable = input.unreachable;
    report.summary.verdict = 'not judged';
  } else if (report.summary.verdict === 'not judged') {
    report.notJudged = notJudgedLine(results, input);
  }
  return report;
}

/**
 * One line naming why required rules were left unjudged and what to change: the budget, the
 * timeout, or answers that never came.
 */
function notJudgedLine(
  results: readonly CheckResult[],
  input: Pick<ReportInput, 'exchanges' | 'requests' | 'timeoutMs'>,
): string {
  const unjudged = results.filter((r) => r.status === 'not-judged' && r.effectiveLevel === 'required');
  const ids = unjudged.map((r) => r.id);
  const named = `${ids.slice(0, 4).join(', ')}${ids.length > 4 ? ` and ${ids.length - 4} more` : ''}`;
  const kinds = new Map<string, number>();
  for (const e of input.exchanges) if (e.error) kinds.set(e.error.kind, (kinds.get(e.error.kind) ?? 0) + 1);
  const unsent = (kinds.get('budget') ?? 0) + (kinds.get('gave-up') ?? 0);
  const timeouts = kinds.get('timeout') ?? 0;
  const throttled = input.exchanges.filter((e) => isFinal(e) && e.response && isThrottled(e.response));
  const pace = input.requests.rateLimit?.suggested;
  let cause: string;
  if ((kinds.get('past-deadline') ?? 0) > 0) {
    cause = pastDeadlineCause(input.exchanges, pace);
  } else if ((kinds.get('budget') ?? 0) > 0) {
    const needed = Math.max(input.requests.planned ?? 0, input.requests.sent + unsent);
    cause = `${kinds.get('budget')} requests were not sent: the request budget of ${input.requests.budget} is spent; raise --max-requests to ${roundUp(needed)}`;
  } else if (timeouts > 0) {
    cause = `the target timed out ${timeouts} times at --timeout ${input.timeoutMs ?? '?'}; raise --timeout, or check the target's load`;
  } else if ((kinds.get('gave-up') ?? 0) > 0) {
    // The client's evidence that the target is gone (`liveness.ts`): the streak, and the request asked again.
    const gone = input.exchanges.find((e) => e.error?.kind === 'gave-up')?.error?.message;
    const evidence = gone?.replace(/^not sent: /, '') ?? 'the target stopped answering';
    cause = `${evidence}; ${kinds.get('gave-up')} requests were not sent`;
  } else if (throttled.length > 0) {
    const statuses = [...new Set(throttled.map((e) => e.response?.status))].join(' or ');
    cause = `${throttled.length} request(s) were still throttled (${statuses}) after their retries: the target's pace, not its fault; run again with --rate-limit ${pace ?? '1/s'}`;
  } else if (kinds.size > 0) {
    const [kind, n] = [...kinds].sort((a, b) => b[1] - a[1])[0] as [string, number];
    cause = `${n} requests got no answer (${kind})`;
  } else {
    cause = unjudged[0]?.reason ?? 'the rules had nothing to judge';
  }
  return `${unjudged.length} required rule(s) not judged (${named}): ${cause}.`;
}

/**
 * What was still waiting when the run reached `--max-duration`: how many requests, by what they
 * waited for, and the first of them.
 */
function pastDeadlineCause(exchanges: readonly Exchange[], pace: string | undefined): string {
  const cut = exchanges.filter((e) => e.error?.kind === 'past-deadline');
  const first = cut[0];
  const limit = /--max-duration (\S+)/.exec(first?.error?.message ?? '')?.[1] ?? '';
  const waiting = new Map<string, number>();
  for (const e of cut) {
    const what = /--max-duration \S+ (.*)$/.exec(e.error?.message ?? '')?.[1] ?? 'waiting';
    waiting.set(what, (waiting.get(what) ?? 0) + 1);
  }
  const counts = [...waiting].map(([what, n]) => `${n} ${what}`).join(', ');
  const example = first ? `; the first: ${first.request.method} ${first.request.url}` : '';
  const advice = pace ? `raise --max-duration, or set --rate-limit ${pace}` : 'raise --max-duration';
  return `the run reached --max-duration ${limit} with ${cut.length} request(s) still waiting (${counts})${example}; ${advice}`;
}

/** A budget that leaves room: the next hundred above what the plan needed. */
const roundUp = (n: number) => Math.ceil((n + 1) / 100) * 100;

function coverageOf(input: ReportInput, results: readonly CheckResult[]): Coverage {
  const gaps = results.flatMap((r) => {
    if (r.status === 'skip') return [`${r.id} (${r.area}): ${r.reason ?? 'not run'} → skipped`];
    if (r.status === 'not-judged') return [`${r.id} (${r.area}): ${r.reason ?? ''} → not judged`];
    if (r.unjudged) return [`${r.id} (${r.area}): also left unjudged: ${r.unjudged}`];
    if (r.judged?.of !== undefined)
      return [
        `${r.id} (${r.area}): ${r.judged.records} of ${r.judged.of} ${r.judged.unit} judged (--sample)`,
      ];
    return [];
  });
  const coverage: Coverage = {
    seed: input.seed,
    operations: operationCoverage(input),
    requirements: results.map((r) => ({
      id: r.id,
      status: r.status,
      ...(r.judged ?? { requests: 0, records: 0, unit: 'records' }),
    })),
    gaps,
  };
  if (input.sampled) coverage.sampled = input.sampled;
  return coverage;
}

function operationCoverage(input: ReportInput): OperationCoverage[] {
  const counts = input.judge?.statusCounts ?? new Map<string, Map<string, number>>();
  return input.spec.operations.map((op) => {
    const seen = counts.get(op.operationId) ?? new Map<string, number>();
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      statuses: op.statuses.map((status) => ({ status, observed: seen.get(status) ?? 0 })),
      undocumented: [...seen]
        .filter(([status]) => !op.statuses.includes(status))
        .map(([status, observed]) => ({ status, observed })),
    };
  });
}
