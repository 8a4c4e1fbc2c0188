/**
 * Runs the rules against one target and returns the report: the spec under test modelled once,
 * the pre-flight, the live run (`run/live.ts`), then the report of the rules' tallies. The runner
 * decides only what the declarations say (skips by key, setting and profile; strict mode) and what
 * the verdict is; the judgements are the rules'.
 */
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { selectChecks } from './selection.ts';
import { HttpClient } from '../transport/client.ts';
import type { Rule } from '../core/rule.ts';
import { ruleAppliesTo } from '../core/rule.ts';
import { loadSpecModel, type SpecModel } from '../core/spec-model.ts';
import { type LiveOutcome, planAndJudge } from './live.ts';
import type { LiveWorld } from './world.ts';
import { reportOf, type ReportInput } from './report.ts';
import { skippedResult } from './results.ts';
import { proxyFor, shownProxy } from '../transport/reach.ts';
import { RULES } from '../rules/registry.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import type { Exchange } from '../core/exchange.ts';
import type { PreflightSummary, Report, ReachSummary } from '../core/report-model.ts';
import { WEB_BASE_URL_NAME } from '../../spec/facts.ts';

const models = new Map<string, SpecModel>();

/**
 * The model of one OpenAPI document, built once per process and path: compiling its validators
 * costs more than a run's validation. An unusable document is unusable configuration (exit 2).
 */
export function specModelFor(path: string = LIVE_SPEC_PATH): SpecModel {
  const known = models.get(path);
  if (known) return known;
  const model = loadSpecModel(path);
  models.set(path, model);
  return model;
}

/** Failures that mean nothing answers at that address at all (exit status 2). */
const UNREACHABLE = new Set(['refused', 'dns', 'connect']);

export async function runSuite(config: SuiteConfig, rules: readonly Rule[] = RULES): Promise<Report> {
  return (await runLive(config, rules)).report;
}

/**
 * Asked before any rule, on the run's own client (its requests count and are recorded); a `stop`
 * ends the run unjudged, like an unreachable target (the CLI's pre-flight, `preflight.ts`).
 */
export type PreflightHook = (
  client: HttpClient,
  config: SuiteConfig,
  spec: SpecModel,
) => Promise<PreflightSummary>;

/** Why a rule cannot run on this configuration, or undefined when it can. */
function whyNotRun(rule: Rule, config: SuiteConfig): string | undefined {
  const missing = (rule.needs ?? []).filter((key) => !config.keys[key]);
  if (missing.length > 0) return `set ${missing.join(' and ')} to run this rule`;
  if (rule.needsWebBaseUrl && !config.webBaseUrl) return `set ${WEB_BASE_URL_NAME} to run this rule`;
  if (rule.direct && config.profile !== 'mock' && proxyFor(config.baseUrl, config.reach))
    return `the run goes through a proxy: ${rule.direct}`;
  if (config.profile === 'mock' && rule.mock !== 'run')
    return `not applicable to the mock: ${rule.mock.skip}`;
  return undefined;
}

/** The report and every exchange of the run, in the order sent (for `--har`). */
export async function runLive(
  config: SuiteConfig,
  rules: readonly Rule[] = RULES,
  preflight?: PreflightHook,
  announce?: (line: string) => void,
): Promise<{ report: Report; exchanges: readonly Exchange[] }> {
  const startedAt = new Date();
  const started = performance.now();
  const spec = specModelFor(config.specPath);
  // `--only` as the CLI reads it, old ids and their prefixes included (`selection.ts`).
  const selected = config.only ? selectChecks(rules, config.only) : rules;
  const client = new HttpClient(config);
  try {
    const pre = await preflight?.(client, config, spec);
    const skipped = skipsOf(selected, config);
    let unreachable = pre?.stop;
    let outcome: LiveOutcome | undefined;
    if (!unreachable) {
      outcome = await planAndJudge(
        spec,
        config,
        client,
        selected.filter((rule) => !skipped.has(rule.id)),
        announce,
      );
      const first = client.exchanges[0]?.error;
      if (first && UNREACHABLE.has(first.kind) && client.exchanges.every((e) => e.error)) {
        unreachable = `${config.baseUrl} cannot be reached: ${first.message}`;
        outcome = undefined;
      }
    }
    const report = reportOf({
      ...liveInput(spec, config, client, outcome),
      skipped: (unreachable ? [] : selected).flatMap((rule) => {
        const reason = skipped.get(rule.id);
        return reason ? [{ rule, result: skippedResult(rule, reason, config.strict) }] : [];
      }),
      order: selected.map((r) => r.id),
      startedAt,
      durationMs: Math.round(performance.now() - started),
      ...(unreachable ? { unreachable } : {}),
    });
    if (pre) report.preflight = pre;
    const reach = reachSummaryOf(config, client);
    if (reach) report.target.reach = reach;
    return { report, exchanges: client.exchanges };
  } finally {
    await client.close();
  }
}

/** The rules this configuration cannot run, each with why (a key, a setting, the profile). */
function skipsOf(rules: readonly Rule[], config: SuiteConfig): Map<string, string> {
  return new Map(
    rules.flatMap((rule) => {
      const reason = whyNotRun(rule, config);
      return reason ? [[rule.id, reason] as const] : [];
    }),
  );
}

/** What the report of a live run is made of, besides its rules and their order. */
function liveInput(
  spec: SpecModel,
  config: SuiteConfig,
  client: HttpClient,
  outcome: LiveOutcome | undefined,
): Omit<ReportInput, 'skipped' | 'order' | 'startedAt' | 'durationMs'> {
  return {
    spec,
    source: 'live',
    strict: config.strict,
    seed: config.seed,
    tallies: outcome?.tallies ?? [],
    ...(outcome ? { judge: outcome.judge } : {}),
    exchanges: client.exchanges,
    baseUrl: config.baseUrl,
    requests: { ...client.requestsOf(config.maxRequests), planned: outcome?.planned ?? 0 },
    timeoutMs: config.timeoutMs,
    ...(outcome?.world.sampled ? { sampled: outcome.world.sampled } : {}),
    ...(outcome ? { swept: sweptBy(outcome.world) } : {}),
    target: {
      baseUrl: config.baseUrl,
      profile: config.profile,
      strict: config.strict,
      embedded: config.embedded,
    },
  };
}

/** What the sweeps of the operations a rule applies to fetched, of how many listed items. */
function sweptBy(world: LiveWorld): (rule: Rule) => { n: number; of: number } | undefined {
  return (rule) => world.swept((op) => ruleAppliesTo(rule, op));
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
