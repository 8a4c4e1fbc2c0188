/**
 * The suite's vocabulary: checks, their results and the report. Checks return data; the runner
 * collects it and reporters only format it.
 */
import type { ContractValidator } from '../spec/contract.ts';
import type { Exchange, HttpClient, RequestInfo } from './client.ts';
import type { Comparison } from './compare.ts';
import type { KeyName, SuiteConfig } from './config.ts';
import type { SuiteData } from './data.ts';
import type { DriftSection } from './drift.ts';
import type { ExpectationsReport, ExpectedFailureMark } from './expectations.ts';
import type { OperationMatcher } from './operations.ts';

export type Status = 'pass' | 'fail' | 'skip' | 'advisory' | 'inconclusive';
/** `required` when the written spec states the rule; `advisory` when it says "not shown". */
export type Level = 'required' | 'advisory';

export const AREAS = [
  'envelope',
  'walks-list',
  'walk-detail',
  'consistency',
  'auth',
  'isolation',
  'not-found',
  'limits',
  'methods',
  'drift',
] as const;
export type Area = (typeof AREAS)[number];

/** How a check behaves under `--profile mock` (a Prism mock answering from the spec's examples). */
export type MockMode = 'run' | { skip: string };

/** What a check's `run` returns: the verdict and the evidence behind it. */
export interface Outcome {
  status: Status;
  expected: string;
  actual: string;
  /** The exchange that showed it, if one did. */
  exchange?: Exchange;
  /** Overrides the check's general hint when the failure calls for a more precise one. */
  hint?: string;
  /** Further findings, one line each (e.g. every walk that broke the rule, bounded). */
  details?: string[];
}

export interface CheckContext {
  readonly config: SuiteConfig;
  readonly client: HttpClient;
  readonly data: SuiteData;
  /** Open objects: decides pass/fail on shapes. */
  readonly contract: ContractValidator;
  /** Closed objects: its extra findings (undocumented fields) are drift. */
  readonly closedContract: ContractValidator;
  /** Which documented operation an exchange belongs to. */
  readonly operations: OperationMatcher;
}

export interface Check {
  /** Stable requirement id, e.g. `WALKS-LIST-003`. */
  id: string;
  /** Section of the written spec the rule comes from, e.g. `§4.2`. */
  section: string;
  /** What is being checked, in words a tester understands. */
  title: string;
  area: Area;
  level: Level;
  /** Drift findings (undocumented fields, statuses, content types): advisory, failures under `--strict`. */
  drift?: true;
  /** The decision in spec/DECISIONS.md an advisory check reports on. */
  decision?: string;
  /** Keys the check needs; it is skipped, naming the variable, when one is not configured. */
  needs?: KeyName[];
  /** Only when this optional setting is configured (e.g. the web base URL). */
  needsSetting?: 'CONFORMANCE_WEB_BASE_URL';
  /** Default `run`. */
  mock?: MockMode;
  /** Traffic checks look at every exchange of the run, so they run after all the others. */
  traffic?: true;
  /** How to fix a failure, in one sentence. */
  hint: string;
  run(ctx: CheckContext): Promise<Outcome>;
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
  status: Status;
  expected: string;
  actual: string;
  hint?: string;
  /** Why a check was skipped or inconclusive. */
  reason?: string;
  details?: string[];
  request?: RequestInfo;
  /** What came back to that request (the body cut to 500 characters). */
  response?: { status: number; contentType?: string; body: string };
  durationMs: number;
  /** Set when `--expect-failures` lists the check. */
  expectedFailure?: ExpectedFailureMark;
}

export interface ReportSummary {
  total: number;
  pass: number;
  fail: number;
  skip: number;
  advisory: number;
  inconclusive: number;
  /** Failures of checks whose effective level is required and that no expected failure covers. */
  requiredFailures: number;
  /** Failures that `--expect-failures` lists: reported, but they do not fail the run. */
  expectedFailures: number;
  /** Listed expected failures whose check passed: each fails the run, so the list cannot rot. */
  fixedExpectedFailures: number;
  verdict: 'pass' | 'fail';
}

export interface Report {
  tool: { name: string; version: string };
  target: { baseUrl: string; profile: 'live' | 'mock'; strict: boolean; embedded: boolean };
  startedAt: string;
  durationMs: number;
  requests: { sent: number; budget: number; memoized: number };
  /** Set when the target could not be reached at all (exit status 2). */
  unreachable?: string;
  summary: ReportSummary;
  results: CheckResult[];
  /** Every difference of the answers from spec/openapi.yaml, once each, grouped by where it occurs. */
  drift: DriftSection;
  /** The `--expect-failures` file and what became of each entry. */
  expectations?: ExpectationsReport;
  /** What changed since the `--compare` report. */
  comparison?: Comparison;
}
