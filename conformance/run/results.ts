/**
 * A rule's tally as a report's result: its class (pass, fail, advisory, not judged, skip), what was
 * expected and what came back, the evidence of the first failure and what was judged. The class is
 * decided here alone, from the tally and the rule's level:
 * - fail: an answer was received and contradicts the rule (advisory rules report it as advisory);
 * - not judged: nothing contradicts it, but records it needed got no usable answer;
 * - pass: it was judged and held;
 * - skip: it had nothing to judge (a key or setting missing, no operation it applies to).
 */
import type { Rule } from '../core/rule.ts';
import { excerpt } from '../core/answers.ts';
import type { Exchange } from '../core/exchange.ts';
import type { CheckResult, Status } from '../core/report-model.ts';
import type { Finding, Tally } from './tally.ts';

/** How many findings the one-line `actual` names before "and N more". */
const SHOWN_IN_ACTUAL = 3;
/**
 * Findings a result holds word for word in memory (the console, HTML and JUnit reports show them);
 * the JSON report lists every one (`findingsOf`).
 */
const SHOWN_FINDINGS = 500;

/** A tally's class and the one line saying what came back. */
function classOf(
  tally: Tally,
  effectiveLevel: CheckResult['effectiveLevel'],
  problems: readonly string[],
  unjudged: number,
  source: 'live' | 'traffic',
): { status: Status; actual: string } {
  const total = tally.distinctFindings;
  if (total > 0) {
    const shown = problems.slice(0, SHOWN_IN_ACTUAL).join('; ');
    return {
      status: effectiveLevel === 'required' ? 'fail' : 'advisory',
      actual: total > SHOWN_IN_ACTUAL ? `${shown} (and ${total - SHOWN_IN_ACTUAL} more)` : shown,
    };
  }
  if (tally.choices.size > 0) return { status: 'advisory', actual: choicesLine(tally.choices) };
  if (unjudged > 0) return { status: 'not-judged', actual: reasonsLine(tally.unjudged) };
  if (tally.records > 0)
    return { status: 'pass', actual: `held on ${tally.records} ${tally.rule.unit ?? 'answers'}` };
  return {
    status: 'skip',
    actual:
      source === 'traffic'
        ? 'the recording holds no exchange this rule judges'
        : 'no operation of the spec, and no answer of the run, that this rule judges',
  };
}

export function resultOfTally(tally: Tally, strict: boolean, source: 'live' | 'traffic'): CheckResult {
  const { rule } = tally;
  const effectiveLevel = rule.drift && strict ? 'required' : rule.level;
  const unjudged = [...tally.unjudged.values()].reduce((sum, n) => sum + n, 0);
  const total = tally.distinctFindings;
  const problems = shownFindings(tally);
  const { status, actual } = classOf(tally, effectiveLevel, problems, unjudged, source);
  const result: CheckResult = {
    id: rule.id,
    section: rule.section,
    title: rule.title,
    area: rule.area,
    level: rule.level,
    effectiveLevel,
    drift: rule.drift === true,
    status,
    expected: rule.expected,
    actual,
    durationMs: Math.round(tally.judgedMs),
  };
  if (rule.owasp) result.owasp = [...rule.owasp];
  // A rule failed by server errors alone shows no weakness of its categories: the server failed.
  if (status === 'fail' && !tally.ownFindings) result.owaspFailed = [];
  else if (status === 'fail' && tally.owaspFailed.size > 0) result.owaspFailed = [...tally.owaspFailed];
  if (rule.decision) result.decision = rule.decision;
  if (tally.differsFromOwn && rule.decision) result.differsFrom = rule.decision.split(/,\s*/);
  else if (tally.differs.size > 0) result.differsFrom = [...tally.differs];
  if (status === 'fail' || status === 'advisory') result.hint = tally.firstHint ?? rule.hint;
  if (status === 'skip' || status === 'not-judged') result.reason = actual;
  if (total > 1) {
    result.details = problems;
    if (total > problems.length) result.findings = total;
  }
  if (unjudged > 0 && status !== 'not-judged') result.unjudged = reasonsLine(tally.unjudged);
  result.judged = {
    requests: tally.judgedObservations,
    records: tally.records,
    unit: rule.unit ?? 'answers',
  };
  const evidence =
    status === 'not-judged'
      ? (tally.firstUnjudged ?? tally.firstJudged)
      : (tally.firstFailure ?? tally.firstJudged ?? tally.firstUnjudged);
  if (evidence) attachEvidence(result, evidence);
  return result;
}

/** A result for a rule the run did not judge at all: a key, a setting or a profile ruled it out. */
export function skippedResult(rule: Rule, reason: string, strict: boolean): CheckResult {
  return {
    id: rule.id,
    section: rule.section,
    title: rule.title,
    area: rule.area,
    level: rule.level,
    effectiveLevel: rule.drift && strict ? 'required' : rule.level,
    drift: rule.drift === true,
    status: 'skip',
    expected: rule.expected,
    actual: reason,
    reason,
    durationMs: 0,
    ...(rule.owasp ? { owasp: [...rule.owasp] } : {}),
    ...(rule.decision ? { decision: rule.decision } : {}),
  };
}

function attachEvidence(result: CheckResult, exchange: Exchange): void {
  result.request = exchange.request;
  const response = exchange.response;
  if (response) {
    result.response = { status: response.status, body: excerpt(response.body) };
    if (response.contentType) result.response.contentType = response.contentType;
  }
}

/** A problem as reports list it: once, with how many records showed it when more than one did. */
const counted = ({ problem, n }: Finding) => (n > 1 ? `${problem} (${n} times)` : problem);

/** The first findings of a tally, as a result holds them in memory. */
function shownFindings(tally: Tally): string[] {
  const shown: string[] = [];
  for (const finding of tally.findings()) {
    if (shown.length === SHOWN_FINDINGS) break;
    shown.push(counted(finding));
  }
  return shown;
}

/** Every finding of a tally, as the JSON report lists them. */
export function* findingsOf(tally: Tally): Generator<string> {
  for (const finding of tally.findings()) yield counted(finding);
}

/** `this deployment answers 401 unauthorized (12); 403 forbidden (2)`. */
function choicesLine(choices: Map<string, number>): string {
  const entries = [...choices];
  if (entries.length === 1) return (entries[0] as [string, number])[0];
  return entries.map(([choice, n]) => (n > 1 ? `${choice} (${n} answers)` : choice)).join('; ');
}

/** `3 × not sent: the request budget is spent (--max-requests); 1 × no complete answer...`. */
function reasonsLine(reasons: Map<string, number>): string {
  return [...reasons].map(([reason, n]) => (n > 1 ? `${n} × ${reason}` : reason)).join('; ');
}
