/**
 * The suite's ground layer: the vocabulary every other module speaks — configuration, requests and
 * answers, outcomes, results and the report. It imports nothing of the suite, so every layer above
 * it (client, checks, runner, reporters, CLI) can depend on it without a circle.
 */

import type { CredentialKeyName, ResultClass } from '../../spec/facts.ts';
import type { NearMiss } from './near-miss.ts';

/** A configured key's variable name (CONTRACT.md); the names are `CREDENTIAL_KEY_NAMES` of spec/facts.ts. */
export type KeyName = CredentialKeyName;

export interface SuiteConfig {
  /** Without a trailing slash; may carry a path prefix. */
  baseUrl: string;
  profile: 'live' | 'mock';
  strict: boolean;
  /** Configured keys by name; the values are secrets and never leave the client. */
  keys: Partial<Record<KeyName, string>>;
  /** The `{web_base_url}` the deployment should use, when the tester knows it. */
  webBaseUrl?: string;
  concurrency: number;
  timeoutMs: number;
  maxRequests: number;
  maxResponseBytes: number;
  /** Longest wait a 429's (or a 503's) `Retry-After` may impose before one retry. */
  maxRetryWaitMs: number;
  /**
   * `--retries N`: how many times a failed request is tried again (`transport/retry.ts`: a 503 or a
   * reset with no answer on GET and HEAD; a throttled answer is waited out more often, unless 0).
   * Every attempt counts in the budget.
   */
  retries: number;
  /**
   * `--max-duration`: the longest a run may take, in milliseconds; past it nothing more is sent or
   * waited for, and what was still waiting is named. Undefined: no bound (in-process tests).
   */
  maxDurationMs?: number;
  /** `--rate-limit N/s` or `N/min`: request starts allowed in any one-second (or one-minute) window. */
  rateLimit?: RateLimit;
  /**
   * `--sample N`: judge N records per sweep, chosen by the seed; undefined (the default) judges every
   * record the deployment serves.
   */
  sample?: number;
  /** `--seed S`: drives every random choice (limit values, samples) so a failure reproduces. */
  seed: number;
  /** Only checks whose id starts with one of these (for focused runs). */
  only?: string[];
  /** The target is the in-process reference server started because no base URL was given. */
  embedded: boolean;
  /** `--spec FILE`: the OpenAPI document to judge against (default: the bundled spec/openapi.yaml). */
  specPath?: string;
  /** `--depth full`: the whole attacker's catalogue on every refusal and target (default: its default tier). */
  depth?: 'default' | 'full';
  /**
   * `--allow-destructive`: the keyed catalogue also sends a DELETE to an item that exists (never
   * otherwise); a deployment that accepts it loses that item.
   */
  allowDestructive?: boolean;
  /** How the target is reached: proxy, TLS trust and identity, gateway headers (`reach.ts`). */
  reach?: Reach;
}

/** `--rate-limit`: at most `requests` request starts in any window of `perMs` (1,000 or 60,000) ms. */
export interface RateLimit {
  requests: number;
  perMs: 1_000 | 60_000;
}

/** A proxy URL and where it was configured (`--proxy`, `HTTPS_PROXY`...), for messages. */
export interface ProxySetting {
  url: string;
  from: string;
  /** The variable the password came from (`CONFORMANCE_PROXY_PASSWORD`), when not from the URL. */
  passwordVariable?: string;
}

/**
 * What stands between the suite and the target in a company network, from flags and environment
 * (`reach.ts`); the client composes its undici dispatcher from it. Values here are secrets where
 * marked: they never leave the client and the redactor.
 */
export interface Reach {
  /** `--proxy` / `CONFORMANCE_PROXY`, which applies to either scheme. */
  proxy?: ProxySetting;
  /** `http_proxy` / `HTTP_PROXY` and `https_proxy` / `HTTPS_PROXY`, by the target's scheme. */
  httpProxy?: ProxySetting;
  httpsProxy?: ProxySetting;
  /** `no_proxy` / `NO_PROXY`: hosts never proxied (curl's rules). */
  noProxy?: string;
  /** `--ca-file`: PEM added to the trusted roots; `variable` when it came from `CONFORMANCE_CA_FILE`. */
  ca?: { file: string; pem: string; variable?: string };
  /** `--insecure`: the target's certificate is not verified (every report says so). */
  insecure: boolean;
  /** `--cert` and `--key` (PEM), with the passphrase read from the variable `--key-passphrase-env` names. */
  clientCert?: {
    certFile: string;
    cert: string;
    keyFile: string;
    key: string;
    passphrase?: string;
    passphraseVariable?: string;
    /** Set when the file came from `CONFORMANCE_CERT_FILE` / `CONFORMANCE_KEY_FILE`. */
    certVariable?: string;
    keyVariable?: string;
  };
  /** `--header` / `CONFORMANCE_HEADERS`: sent on every request; values are secrets. */
  headers: GatewayHeader[];
}

/** The reach as reports show it: the proxy's origin, file paths, header names; never a secret. */
export interface ReachSummary {
  proxy?: string;
  caFile?: string;
  /** `--insecure`: TLS certificates were not verified. */
  insecure?: true;
  clientCert?: string;
  headers?: string[];
}

export interface GatewayHeader {
  name: string;
  /** A secret: reports show `shown`, never this. */
  value: string;
  /**
   * The value as reproductions and the HAR show it, for the shell to expand: as written when it
   * named variables (`$GATEWAY_TOKEN`), else the variable the suite also reads it from
   * (`$CONFORMANCE_HEADER_X_GATEWAY_TOKEN`).
   */
  shown: string;
  /** The variables whose values make it up, by name: the redactor replaces each by its name. */
  secrets: Record<string, string>;
}

export type Via = 'bearer' | 'x-api-key';
/** A configured key, named, sent in one of the two headers. */
export interface KeyUse {
  key: KeyName;
  via: Via;
  /** Sends this edit of the key instead (`near-miss.ts`), derived at send time, never stored. */
  nearMiss?: NearMiss;
  /**
   * The word sent before the key instead of its header's own (`Bearer` in Authorization, none in
   * x-api-key): `Token`, or `''` for the bare key. Credentials no deployment may accept.
   */
  scheme?: string;
  /** Sends the key without this leading text (the spec's key prefix): a token not shaped like a key. */
  dropPrefix?: string;
  /**
   * Sends the key out of its headers, where no deployment may read it: as a query parameter, as a
   * cookie of that name, or as the user name of Basic authentication (`via` is then unused).
   */
  placed?: KeyPlacement;
}

/** Where a key goes out of its place (`KeyUse.placed`). */
export type KeyPlacement = { in: 'query' | 'cookie'; name: string } | { in: 'basic' };

export interface RequestSpec {
  method?: string;
  /** Path below the base URL, e.g. `/api/v1/walks`. */
  path: string;
  /** Raw query string without `?`, sent exactly as written (e.g. `limit=1&limit=2`). */
  query?: string;
  auth?: KeyUse | KeyUse[];
  /** Literal headers; never secrets (use `auth` for configured keys). */
  headers?: Record<string, string>;
  /** Sends a well-formed key no deployment knows (`svc_sk_live_` + random) in this header. */
  madeUpKey?: Via;
  body?: string;
  /**
   * The same request made again (1, 2...): identical on the wire, but not the same request to
   * deduplication, so a read made after other keys' requests is sent rather than remembered.
   */
  again?: number;
  /**
   * Read off the socket (`transport/raw-answer.ts`): the answer's status and headers, and how many
   * bytes came after them, which an HTTP client drops for HEAD, 204 and 304 (`ResponseData.socket`).
   */
  offSocket?: true;
}

/** The request as reports show it: keys by name, never by value. */
export interface RequestInfo {
  method: string;
  url: string;
  /** Names of the configured keys sent, e.g. `CONFORMANCE_API_KEY`. */
  keys: KeyName[];
  /** Near misses of configured keys sent instead of the keys themselves (their values are derived, never stored). */
  nearMisses?: { key: KeyName; nearMiss: NearMiss }[];
  headers: Record<string, string>;
  body?: string;
  curl: string;
}

export interface ResponseData {
  status: number;
  headers: Record<string, string>;
  /** `Content-Type` as sent; `mediaType` is its lower-case essence (`application/json`). */
  contentType?: string;
  mediaType?: string;
  /** The content, decoded when it came gzip-encoded (see `encoded`). */
  body: string;
  bytes: number;
  /** Set when the answer came content-coded and the client decoded it: the coding and its size on the wire. */
  encoded?: { coding: string; bytes: number };
  /** Parsed JSON when the body is JSON, whatever the content type says. */
  json?: unknown;
  /** Why the body is not JSON (empty bodies have neither `json` nor `jsonError`). */
  jsonError?: string;
  /** A recording holds the answer's status and headers, not its body: `body` is empty for want of it. */
  unrecorded?: true;
  /**
   * A request sent `offSocket`: the bytes that came after the headers, or why the answer could not
   * be read off the socket (a proxy between, which the client goes through as usual).
   */
  socket?: { afterHeaders: number } | { unread: string };
}

export type FailureKind =
  /** No connection within the connect timeout (a host that drops packets). */
  | 'connect'
  | 'timeout'
  | 'refused'
  | 'dns'
  | 'reset'
  /** The status and headers arrived, the body did not arrive whole (`NetworkFailure.cut`). */
  | 'cut'
  | 'protocol'
  | 'too-large'
  /** The answer declares a `Content-Encoding` its body does not decode from (or one no client knows). */
  | 'undecodable'
  | 'network'
  /** The TLS handshake failed: an untrusted or expired certificate, a name mismatch, a client certificate required. */
  | 'tls'
  /** The configured proxy cannot be reached, or refused to carry the request. */
  | 'proxy'
  /** Not sent: the request budget is spent. */
  | 'budget'
  /** Not sent: the target stopped answering, so the suite stopped asking. */
  | 'gave-up'
  /** Not sent, or not answered in time: the run reached `--max-duration`. */
  | 'past-deadline';

/** The flag that caps an answer's size: a `too-large` failure that names it was cut at the cap. */
export const RESPONSE_CAP_FLAG = '--max-response-bytes';

/** An answer cut off at the size cap: legal perhaps, but too large to judge (not the deployment's fault). */
export function overCap(error: NetworkFailure | undefined): boolean {
  return error?.kind === 'too-large' && error.message.includes(RESPONSE_CAP_FLAG);
}

export interface NetworkFailure {
  kind: FailureKind;
  message: string;
  /** The error code behind it (`ECONNRESET`, `CERT_HAS_EXPIRED`...), when one was given. */
  code?: string;
  /** A `cut` answer: what it declared, and what arrived. */
  cut?: CutAnswer;
}

/** An answer that began and did not arrive whole. */
export interface CutAnswer {
  status: number;
  /** Its Content-Length, when it declared one. */
  declared?: number;
  /** It came in chunks (Transfer-Encoding: chunked). */
  chunked?: true;
  /** Body bytes that arrived before it ended. */
  arrived: number;
}

/**
 * One attempt of a request. A request tried again (client.ts's retry policy) leaves one exchange per
 * attempt in `client.exchanges`, in the order sent: the HAR, the JSON report and the coverage count
 * them all. Every attempt but the last carries `retriedAs`, the `seq` of the attempt that replaced it;
 * rules judge only final attempts (`isFinal`), and `send()` resolves to the final one.
 */
export interface Exchange {
  seq: number;
  /** When it was sent (ms since the epoch): the HAR's `startedDateTime`. */
  startedAt?: number;
  request: RequestInfo;
  response?: ResponseData;
  error?: NetworkFailure;
  durationMs: number;
  /** Attempts of the same request before this one (0 for a first attempt). */
  retries: number;
  /** Set on a superseded attempt: the `seq` of the attempt sent again in its place. */
  retriedAs?: number;
  /** Why it was tried again (`429`, `503`, `reset`, `local`), on a superseded attempt. */
  retriedFor?: RetryReason;
}

/** What makes the client try a request again (client.ts, `RETRY_POLICY`). */
export type RetryReason = '429' | '503' | 'reset' | 'local';

/** Whether an exchange is the one a request ended with: the attempt rules judge. */
export function isFinal(exchange: Exchange): boolean {
  return exchange.retriedAs === undefined;
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

export interface RequirementCoverage extends Judged {
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

export interface ExpectedFailureMark {
  reason: string;
  state: ExpectationState;
}

export interface ExpectationsReport {
  file: string;
  entries: (ExpectedFailure & { state: ExpectationState })[];
}
