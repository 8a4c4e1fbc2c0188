/**
 * The report's vocabulary: a rule's result, the summary and verdict, coverage, drift, the
 * comparison with a previous report and the expected failures. It imports nothing of the suite but
 * its names, so every layer can speak it.
 */
import type { ResultClass } from '../../spec/facts.ts';
import type { RequestInfo, RetryReason } from './exchange.ts';

/** The reach as reports show it: the proxy's origin, file paths, header names; never a secret. */
export interface ReachSummary {
  proxy?: string;
  caFile?: string;
  /** `--insecure`: TLS certificates were not verified. */
  insecure?: true;
  clientCert?: string;
  headers?: string[];
}

export type Status = ResultClass;
/** `required` when the written spec states the rule; `advisory` when it says "not shown". */
export type Level = 'required' | 'advisory';

export const AREAS = [
  'envelope',
  'collections',
  'items',
  'walks-list',
  'walk-detail',
  'consistency',
  'auth',
  'isolation',
  'not-found',
  'limits',
  'pagination',
  'methods',
  'security',
  'drift',
] as const;
export type Area = (typeof AREAS)[number];

/** How a check behaves under `--profile mock` (a Prism mock answering from the spec's examples). */
export type MockMode = 'run' | { skip: string };

/** How much of the deployment a check judged: requests, and records of a kind (`of` when sampled). */
export interface Judged {
  requests: number;
  records: number;
  /** What a record is, plural: `walks`, `answers`, `limit values`. */
  unit: string;
  /** How many records there were to judge, when fewer were (`--sample`, a budget, missing data). */
  of?: number;
}

export interface CheckResult {
  id: string;
  section: string;
  title: string;
  area: Area;
  level: Level;
  /** The level that decided the verdict: drift checks are `required` under `--strict`. */
  effectiveLevel: Level;
  drift: boolean;
  decision?: string;
  /** The decision ids (spec/DECISIONS.md) this deployment decided otherwise; `--strict` names them. */
  differsFrom?: string[];
  status: Status;
  expected: string;
  actual: string;
  hint?: string;
  /** Why a check was skipped or inconclusive. */
  reason?: string;
  /** The findings, each once with how often it was seen (the first 500 in memory, every one in the JSON report). */
  details?: string[];
  /** How many distinct findings there are, when `details` in memory holds fewer. */
  findings?: number;
  request?: RequestInfo;
  /** What came back to that request (the body cut to 500 characters). */
  response?: { status: number; contentType?: string; body: string };
  durationMs: number;
  /** Set when `--expect-failures` lists the check. */
  expectedFailure?: ExpectedFailureMark;
  judged?: Judged;
  /** The OWASP API Security Top 10 (2023) categories a failure of this rule falls under. */
  owasp?: string[];
  /**
   * The categories its findings fell under, for a rule that places each finding (a bypass of a
   * missing key is API2, of a scope API5, of another campaign's item API1); absent: all of `owasp`.
   */
  owaspFailed?: string[];
  /** Records left unjudged beside those judged (a rule that failed or passed on the rest), and why. */
  unjudged?: string;
}

/** How many results of each class (`RESULT_CLASSES`), then what decides the verdict. */
export interface ReportSummary extends Record<ResultClass, number> {
  total: number;
  /** Failures of checks whose effective level is required and that no expected failure covers. */
  requiredFailures: number;
  /** Failures that `--expect-failures` lists: reported, but they do not fail the run. */
  expectedFailures: number;
  /** Listed expected failures whose check passed: each fails the run, so the list cannot rot. */
  fixedExpectedFailures: number;
  /**
   * `not judged`: the run stopped before any rule (`Report.unreachable` says why), or no required
   * rule failed but some were left unjudged (`Report.notJudged` says why): exit status 2.
   */
  verdict: 'pass' | 'fail' | 'not judged';
  /** Required rules left unjudged, none of them contradicted. */
  requiredNotJudged: number;
}

/** The pace a run kept: the `--rate-limit` asked for, the rate 429s taught, the 429s answered. */
export interface PaceSummary {
  /** `--rate-limit` as given, e.g. `20/s`. */
  asked?: string;
  /** Request starts per second the target's 429s taught the client to keep to. */
  learntPerSecond?: number;
  /** Request starts per minute the target's 429s taught the client to keep to. */
  learntPerMinute?: number;
  /** The `--rate-limit` to set when answers were still throttled after their retries. */
  suggested?: string;
  /** Answers with status 429, every attempt counted. */
  throttled: number;
}

/** Which OpenAPI document a run used: its file, `info.version` and SHA-256 of its bytes. */
export interface SpecIdentity {
  path: string;
  version: string;
  sha256: string;
}

export interface Report {
  tool: { name: string; version: string };
  /** The OpenAPI document the run judged against. */
  spec: SpecIdentity;
  target: {
    baseUrl: string;
    profile: 'live' | 'mock';
    strict: boolean;
    embedded: boolean;
    /** How it was reached, when not plainly: no secret, only what the tester set up. */
    reach?: ReachSummary;
  };
  startedAt: string;
  durationMs: number;
  /**
   * `sent` counts every attempt; `retried` those tried again, by reason (reports made before there was
   * a retry policy have none); `rateLimit` the pace the run kept (`--rate-limit`, and what 429s taught);
   * `planned` (live runs) how many requests the plan asked for.
   */
  requests: {
    sent: number;
    budget: number;
    memoized: number;
    retried?: Partial<Record<RetryReason, number>>;
    rateLimit?: PaceSummary;
    planned?: number;
  };
  /**
   * Set when the run could not judge the target (exit status 2): the pre-flight found it unreachable,
   * silent, rejecting the key, behind a base URL that holds the API prefix, or not answering JSON.
   */
  unreachable?: string;
  /**
   * Set when no required rule failed but some were left unjudged (exit status 2): one line naming
   * the cause and the fix (`raise --max-requests to 700`, `the target timed out 23 times...`).
   */
  notJudged?: string;
  /**
   * Answers cut off at `--max-response-bytes`, one line each: the checks they cut were not judged,
   * and a run that otherwise passes ends with exit status 2.
   */
  overCap?: string[];
  /** What the pre-flight asked before any check, and what it found (CLI runs). */
  preflight?: PreflightSummary;
  summary: ReportSummary;
  results: CheckResult[];
  /** Every difference of the answers from spec/openapi.yaml, once each, grouped by where it occurs. */
  drift: DriftSection;
  /** The `--expect-failures` file and what became of each entry. */
  expectations?: ExpectationsReport;
  /** What changed since the `--compare` report. */
  comparison?: Comparison;
  /** What the run looked at and what it could not (reports made before it have none). */
  coverage?: Coverage;
  /** The checks by the OWASP API Security Top 10 (2023) category they cover (`security-view.ts`). */
  security?: SecurityCategory[];
}

/** One OWASP API Security Top 10 (2023) category and how its checks fared in a run. */
export interface SecurityCategory {
  /** `API1:2023` */
  id: string;
  name: string;
  /** `advisory`: drift found that fails only under `--strict`. */
  status: 'pass' | 'fail' | 'advisory' | 'not judged';
  /** The ids of the checks that cover it, in report order. */
  checks: string[];
  failed: string[];
}

/** What a run covered: the seed, the sample, the statuses seen per operation, the records per requirement. */
export interface Coverage {
  seed: number;
  /** Set under `--sample N`: each sweep judged `n` of `of` records. */
  sampled?: { n: number; of: number };
  operations: OperationCoverage[];
  requirements: RequirementCoverage[];
  /** What could not be covered and why, one line each. */
  gaps: string[];
  /** Set by `--traffic`: what the recording held and how much of it was judged. */
  traffic?: TrafficCoverage;
}

/** What `--traffic` read: the file's entries, those of this API, and those judged. */
export interface TrafficCoverage {
  file: string;
  /** Every entry of the file. */
  entries: number;
  /** Entries under the API's base URL. */
  ofApi: number;
  judged: number;
  /** Entries of this API that could not be judged, by reason (no answer, no body recorded...). */
  notJudged: { reason: string; entries: number }[];
  /** The entries that could not be read, each by its place in the file and why (the first 50). */
  unreadable?: string[];
  /** Answers the recording holds without their bodies: judged on status and headers alone. */
  bodyless?: number;
}

export interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  /** Every documented status and how many answers of the run showed it (0: not observed). */
  statuses: { status: string; observed: number }[];
  /** Statuses the run saw that the operation does not document. */
  undocumented: { status: string; observed: number }[];
}

interface RequirementCoverage extends Judged {
  id: string;
  status: Status;
}

/** The pre-flight: its requests (shared with the checks), its time, and what it found. */
export interface PreflightSummary {
  requests: number;
  durationMs: number;
  /** Why the run cannot judge the deployment: one or two lines, what is wrong and what to try. */
  stop?: string;
  /** Worth saying, not worth stopping for (e.g. a mock checked with `--profile live`). */
  warnings: string[];
}

/**
 * `field`: a field the spec does not document; `status`: a status the operation does not document;
 * `content-type`: a media type it does not document; `schema`: a documented value the schema
 * refuses (wrong type, missing required field, value outside its enum...).
 */
export const DRIFT_KINDS = ['status', 'content-type', 'field', 'schema'] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

export interface DriftFinding {
  kind: DriftKind;
  /** The documented operation, e.g. `listWalks`, with its method and path template. */
  operationId: string;
  method: string;
  path: string;
  status: number;
  /**
   * A JSON path whose array indexes read `*` (a walk's `region` in a list is `/data/*` + `/region`),
   * `header Content-Type`, or `status`.
   */
  where: string;
  /** What differs, in words. */
  message: string;
  /** The check that judges it, e.g. `DRIFT-001`. */
  check: string;
  /** Answers that showed it (a list whose 50 walks all carry the field counts once). */
  responses: number;
  /** Answers of this operation with this status that were judged. */
  of: number;
  /** The first request that showed it, to reproduce it. */
  example: { method: string; url: string; curl: string };
}

export interface DriftSection {
  /** Answers of documented operations that were judged (HEAD and unanswered requests are not). */
  judged: number;
  findings: DriftFinding[];
  /** Distinct findings left out beyond MAX_FINDINGS (a target inventing a new field per walk). */
  omitted: number;
}

/** What the comparison needs of a previous report; older reports may lack drift. */
export interface PreviousReport {
  baseUrl?: string;
  startedAt?: string;
  unreachable?: string;
  results: { id: string; title?: string; status: Status; actual?: string }[];
  drift?: DriftFinding[];
}

export interface CheckChange {
  id: string;
  title: string;
  /** The previous status; `absent` when the previous report did not have the check. */
  was: Status | 'absent';
  now: Status;
  actual: string;
  /** For advisories: what the deployment answered before. */
  wasActual?: string;
}

export interface Comparison {
  previous: { file: string; baseUrl?: string; startedAt?: string; unreachable?: string };
  newlyFailing: CheckChange[];
  newlyPassing: CheckChange[];
  /** Failing then and now. */
  stillFailing: string[];
  /** Advisory now, and either not advisory before or with a different answer. */
  newAdvisories: CheckChange[];
  newDrift: DriftFinding[];
  goneDrift: DriftFinding[];
  /** False when the previous report has no drift section (made before there was one). */
  driftCompared: boolean;
}

export interface ExpectedFailure {
  id: string;
  reason: string;
}

/**
 * `failing`: it still fails (expected); `fixed`: it passed, so the entry must go (fails the run);
 * `not-run`: skipped, inconclusive or not selected, so the run cannot tell (the entry stays).
 */
export type ExpectationState = 'failing' | 'fixed' | 'not-run';

interface ExpectedFailureMark {
  reason: string;
  state: ExpectationState;
}

interface ExpectationsReport {
  file: string;
  entries: (ExpectedFailure & { state: ExpectationState })[];
}
