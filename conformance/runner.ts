/**
 * Runs the checks against one target and returns the report. The runner decides only what the
 * check declarations say (skips, levels, strict mode); the verdicts are the checks' own.
 */
import type { ContractValidator } from '../spec/contract.ts';
import { createHash } from 'node:crypto';
import { createContractValidator, loadSpec } from '../spec/contract.ts';
import { LIVE_SPEC_PATH, WEB_BASE_URL_NAME } from '../spec/facts.ts';
import { CHECKS } from './checks/registry.ts';
import { excerpt } from './checks/outcome.ts';
import type {
  Exchange,
  CheckResult,
  Coverage,
  Outcome,
  PreflightSummary,
  ReachSummary,
  Report,
  SpecIdentity,
  SuiteConfig,
} from './types.ts';
import { HttpClient } from './client.ts';
import { ConfigError } from './config-error.ts';
import { readConfigFile } from './config-file.ts';
import { TOOL_NAME, VERSION } from './tool.ts';
import { SuiteData } from './shared-fetches.ts';
import { driftSection } from './drift.ts';
import { operationMatcher } from './operations.ts';
import { summarize } from './summary.ts';
import { profileOf } from './target.ts';
import { securityView } from './security-view.ts';
import { shownProxy } from './reach.ts';
import { overCap } from './types.ts';

import type { Check, CheckContext } from './checks/check.ts';

interface Contracts {
  open: ContractValidator;
  closed: ContractValidator;
  spec: SpecIdentity;
}

const compiled = new Map<string, Contracts>();

/**
 * The validators of one OpenAPI document, compiled once per process and path: compiling costs more
 * than a run's validation. An unreadable or invalid document is unusable configuration.
 */
export function contractsFor(path: string = LIVE_SPEC_PATH): Contracts {
  const known = compiled.get(path);
  if (known) return known;
  const text = readConfigFile(`--spec ${path}`, path);
  let contracts: Contracts;
  try {
    const doc = loadSpec(path);
    if (typeof doc?.openapi !== 'string' || !doc.openapi.startsWith('3.'))
      throw new Error('not an OpenAPI 3 document');
    contracts = {
      open: createContractValidator(doc, { objects: 'open' }),
      closed: createContractValidator(doc, { objects: 'closed' }),
      spec: {
        path,
        version: String(doc.info?.version ?? 'unknown'),
        sha256: createHash('sha256').update(text).digest('hex'),
      },
    };
  } catch (error) {
    throw new ConfigError(
      `--spec ${path} is not a usable OpenAPI document: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  compiled.set(path, contracts);
  return contracts;
}

/** Failures that mean nothing answers at that address at all (exit status 2). */
const UNREACHABLE = new Set(['refused', 'dns', 'connect']);

export async function runSuite(config: SuiteConfig, checks: readonly Check[] = CHECKS): Promise<Report> {
  return (await runSuiteWithTraffic(config, checks)).report;
}

/**
 * Asked before any check, on the run's own client (its requests count and are recorded); a `stop`
 * ends the run unjudged, like an unreachable target (the CLI's pre-flight, `preflight.ts`).
 */
export type PreflightHook = (
  client: HttpClient,
  config: SuiteConfig,
  contract: ContractValidator,
) => Promise<PreflightSummary>;

/** The report and every exchange of the run, in the order sent (for `--har`). */
export async function runSuiteWithTraffic(
  config: SuiteConfig,
  checks: readonly Check[] = CHECKS,
  preflight?: PreflightHook,
): Promise<{ report: Report; exchanges: readonly Exchange[] }> {
  const startedAt = new Date();
  const started = performance.now();
  const { ctx, spec } = contextFor(config);
  try {
    const pre = await preflight?.(ctx.client, ctx.config, ctx.contract);
    const first = await ctx.data.listDefault();
    const error = first.exchange.error;
    let results: CheckResult[] = [];
    let unreachable: string | undefined;
    if (pre?.stop) {
      unreachable = pre.stop;
    } else if (error && UNREACHABLE.has(error.kind)) {
      unreachable = `${config.baseUrl} cannot be reached: ${error.message}`;
    } else {
      results = await runChecks(
        checks.filter((c) => !config.only || config.only.some((prefix) => c.id.startsWith(prefix))),
        ctx,
      );
    }
    const report: Report = {
      tool: { name: TOOL_NAME, version: VERSION },
      spec,
      target: {
        baseUrl: config.baseUrl,
        profile: config.profile,
        strict: config.strict,
        embedded: config.embedded,
      },
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      requests: ctx.client.requestsOf(config.maxRequests),
      summary: summarize(results),
      results,
      drift: unreachable ? { judged: 0, findings: [], omitted: 0 } : driftSection(ctx.client.exchanges, ctx),
      coverage: coverageOf(ctx, results),
      security: securityView(results),
    };
    if (pre) report.preflight = pre;
    const reach = reachSummaryOf(config, ctx.client);
    if (reach) report.target.reach = reach;
    const cut = ctx.client.exchanges.filter((e) => overCap(e.error));
    if (cut.length > 0) {
      report.overCap = cut.map((e) => `${e.request.method} ${e.request.url}: ${e.error?.message ?? ''}`);
    }
    if (unreachable) {
      report.unreachable = unreachable;
      report.summary.verdict = 'not judged';
    }
    return { report, exchanges: ctx.client.exchanges };
  } finally {
    await ctx.client.close();
  }
}

/** How the run reached its target, without a secret: what reports show of the setup. */
function reachSummaryOf(config: SuiteConfig, client: HttpClient): ReachSummary | undefined {
  const reach = config.reach;
  if (!reach) return undefined;
  const summary: ReachSummary = {};
  if (client.proxy) summary.proxy = `${shownProxy(client.proxy)} (${client.proxy.from})`;
  if (reach.ca) summary.caFile = reach.ca.file;
  if (reach.insecure) summary.insecure = true;
  if (reach.clientCert) summary.clientCert = reach.clientCert.certFile;
  if (reach.headers.length > 0) summary.headers = reach.headers.map((h) => h.name);
  return Object.keys(summary).length > 0 ? summary : undefined;
}

/**
 * What the checks of one run share: the client, the data, the validators and the operations. The
 * config is the resolved target's (`target.ts`), keys included; the runner adds none.
 */
function contextFor(config: SuiteConfig): { ctx: CheckContext; spec: SpecIdentity } {
  const client = new HttpClient(config);
  const { open, closed, spec } = contractsFor(config.specPath);
  const ctx: CheckContext = {
    config,
    client,
    data: new SuiteData(client, config, profileOf(config, open)),
    contract: open,
    closedContract: closed,
    operations: operationMatcher(open, config.baseUrl),
  };
  return { ctx, spec };
}

/** The ordinary checks together, then the traffic checks over all they sent; results in report order. */
async function runChecks(selected: readonly Check[], ctx: CheckContext): Promise<CheckResult[]> {
  const ordinary = selected.filter((c) => !c.traffic);
  const traffic = selected.filter((c) => c.traffic);
  const firstPass = await Promise.all(ordinary.map((check) => runCheck(check, ctx)));
  const secondPass = await Promise.all(traffic.map((check) => runCheck(check, ctx)));
  const byId = new Map([...firstPass, ...secondPass].map((r) => [r.id, r]));
  return selected.map((c) => byId.get(c.id) as CheckResult);
}

async function runCheck(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const started = performance.now();
  const outcome = await outcomeOf(check, ctx);
  return resultOf(check, outcome, ctx.config.strict, Math.round(performance.now() - started));
}

/** What a result needs of its check: the declaration, not the function. */
export type CheckDeclaration = Pick<
  Check,
  'id' | 'section' | 'title' | 'area' | 'level' | 'drift' | 'decision' | 'hint'
>;

/**
 * A check's result from its outcome: the level that decides (drift is required under `--strict`),
 * the hint on a failure, the reason of a skip, and the request and answer that showed it.
 */
export function resultOf(
  check: CheckDeclaration,
  outcome: Outcome,
  strict: boolean,
  durationMs: number,
): CheckResult {
  const effectiveLevel = check.drift && strict ? 'required' : check.level;
  const status = outcome.status === 'fail' && effectiveLevel === 'advisory' ? 'advisory' : outcome.status;
  const result: CheckResult = {
    id: check.id,
    section: check.section,
    title: check.title,
    area: check.area,
    level: check.level,
    effectiveLevel,
    drift: check.drift === true,
    status,
    expected: outcome.expected,
    actual: outcome.actual,
    durationMs,
  };
  if (check.decision) result.decision = check.decision;
  if (outcome.differs && check.decision) {
    result.differsFrom = outcome.differs === true ? check.decision.split(/,\s*/) : outcome.differs;
  }
  if (status === 'fail' || status === 'advisory') result.hint = outcome.hint ?? check.hint;
  if (status === 'skip' || status === 'inconclusive') result.reason = outcome.actual;
  if (outcome.details && outcome.details.length > 1) result.details = outcome.details;
  if (outcome.judged) result.judged = outcome.judged;
  if (outcome.exchange) {
    result.request = outcome.exchange.request;
    const response = outcome.exchange.response;
    if (response) {
      result.response = { status: response.status, body: excerpt(response.body) };
      if (response.contentType) result.response.contentType = response.contentType;
    }
  }
  return result;
}

async function outcomeOf(check: Check, ctx: CheckContext): Promise<Outcome> {
  const missing = (check.needs ?? []).filter((name) => !ctx.config.keys[name]);
  if (missing.length > 0) {
    return {
      status: 'skip',
      expected: check.title,
      actual: `set ${missing.join(' and ')} to run this check`,
    };
  }
  if (check.needsSetting === WEB_BASE_URL_NAME && !ctx.config.webBaseUrl) {
    return { status: 'skip', expected: check.title, actual: `set ${WEB_BASE_URL_NAME} to run this check` };
  }
  const notApplicable = ctx.data.profile.notApplicable(check.mock);
  if (notApplicable) return { status: 'skip', expected: check.title, actual: notApplicable };
  try {
    return await check.run(ctx);
  } catch (error) {
    return {
      status: 'fail',
      expected: check.title,
      actual: `the check could not judge the answer: ${(error as Error).message}`,
      hint: 'An answer was shaped so unexpectedly that the check broke on it; please report it with the request.',
    };
  }
}

/** Areas whose checks sweep the campaign's walks: a skip there leaves walks unjudged. */
const SWEEPING = new Set(['walk-detail', 'consistency', 'isolation']);

/** What the run covered: statuses per operation, records per requirement, and what it could not cover. */
function coverageOf(ctx: CheckContext, results: CheckResult[]): Coverage {
  const walks = ctx.data.listed;
  const gaps = results.flatMap((r) => {
    const unjudged = walks !== undefined && SWEEPING.has(r.area) ? `, 0 of ${walks} walks judged` : '';
    if (r.status === 'skip') return [`${r.id} (${r.area}): ${r.reason ?? 'not run'}${unjudged} → skipped`];
    if (r.status === 'inconclusive') return [`${r.id} (${r.area}): ${r.reason ?? ''} → inconclusive`];
    if (r.judged?.of !== undefined && r.judged.records < r.judged.of) {
      return [`${r.id} (${r.area}): ${r.judged.records} of ${r.judged.of} ${r.judged.unit} judged`];
    }
    return [];
  });
  const coverage: Coverage = {
    seed: ctx.config.seed,
    operations: ctx.operations.statusCoverage(ctx.client.exchanges),
    requirements: results.map((r) => ({
      id: r.id,
      status: r.status,
      ...(r.judged ?? { requests: 0, records: 0, unit: 'records' }),
    })),
    gaps,
  };
  if (ctx.data.sampled) coverage.sampled = ctx.data.sampled;
  return coverage;
}
