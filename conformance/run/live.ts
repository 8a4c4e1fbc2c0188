/**
 * A live run: discovery, then every rule's plan on every operation it applies to, the requests
 * deduplicated and sent phase by phase through the run's one client, then every exchange judged by
 * the one judge (`judge.ts`), exactly as a recording's would be. Which rule asked for a request is
 * kept, so a request that got no answer leaves exactly those rules unjudged.
 */
import type { HttpClient } from '../transport/client.ts';
import { Keyring } from '../core/credentials.ts';
import { observe, type ObserveOptions, type ProbeTags } from '../core/observe.ts';
import type { Probe, Rule, RuleContext } from '../core/rule.ts';
import { ruleAppliesTo } from '../core/rule.ts';
import type { SpecModel } from '../core/spec-model.ts';
import { type RuleState, UnboundedState } from '../core/state.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import type { Exchange, RequestSpec } from '../core/exchange.ts';
import { keyEcho } from './echoes.ts';
import { Judge } from './judge.ts';
import type { Tally } from './tally.ts';
import { LiveWorld } from './world.ts';
import { InOrderJudging } from './in-order.ts';

/** The phase of requests asked again together (`Probe.followUp`): after every planned phase. */
const TOGETHER_PHASE = 10;

interface Planned {
  request: RequestSpec;
  phase: number;
  plannedBy: Set<string>;
  /** Private only when every rule that asked for it asked privately. */
  private: boolean;
  transform?: string;
  /** Requests to make from its answer, each with the rule that asked (`Probe.followUp`). */
  followUps: { by: string; probe: Probe }[];
}

export interface LiveOutcome {
  tallies: Tally[];
  judge: Judge;
  world: LiveWorld;
  /** Requests the plan asked for (after deduplication), discovery included. */
  planned: number;
}

/** The identity of a request: two rules asking for the same one share one exchange. */
function requestKey(request: RequestSpec): string {
  const headers = Object.entries(request.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => (a as string).localeCompare(b as string));
  return JSON.stringify([
    (request.method ?? 'GET').toUpperCase(),
    request.path,
    request.query ?? null,
    request.auth ?? null,
    request.madeUpKey ?? null,
    headers,
    request.body ?? null,
    request.again ?? 0,
  ]);
}

export function ruleContextOf(
  spec: SpecModel,
  config: SuiteConfig,
  source: 'live' | 'traffic',
  madeUpKey?: string,
  state: RuleState = new UnboundedState(),
): RuleContext {
  return {
    spec,
    state,
    strict: config.strict,
    ...(config.webBaseUrl ? { webBaseUrl: config.webBaseUrl } : {}),
    keys: new Set(Object.entries(config.keys).flatMap(([name, value]) => (value ? [name as never] : []))),
    echoed: keyEcho({
      keys: config.keys,
      ...(madeUpKey ? { madeUpKey } : {}),
      ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}),
    }),
    source,
  };
}

/**
 * The requests of a run, deduplicated: who asked for each, in which phase it is sent, and the
 * follow-ups to make from its answer.
 */
class Plan {
  readonly entries = new Map<string, Planned>();
  /** The phase being sent (-1 before the first). */
  phase = -1;
  /** The entries each exchange answered so far, in the order answered. */
  readonly early = new Map<Exchange, Planned[]>();

  add(probe: Probe, by: string | undefined, phase: number = probe.phase ?? 1): void {
    const key = requestKey(probe.request);
    const followUps = probe.followUp && by ? [{ by, probe }] : [];
    const known = this.entries.get(key);
    if (known) {
      if (by) known.plannedBy.add(by);
      known.private &&= probe.private === true;
      known.phase = Math.min(known.phase, phase);
      known.followUps.push(...followUps);
      return;
    }
    this.entries.set(key, {
      request: probe.request,
      phase,
      plannedBy: new Set(by ? [by] : []),
      private: probe.private === true,
      ...(probe.transform ? { transform: probe.transform } : {}),
      followUps,
    });
  }

  /**
   * Sends phase by phase, lowest first; a follow-up joins the phase after the answer it is made
   * from. Returns the entries each exchange answered; `answered` hears of each answer as it comes,
   * with the entries known by then (`early`).
   */
  async send(client: HttpClient, answered: () => void = () => {}): Promise<Map<Exchange, Planned[]>> {
    const tags = new Map<Exchange, Planned[]>();
    const sent = new Set<Planned>();
    for (;;) {
      const waiting = [...this.entries.values()].filter((entry) => !sent.has(entry));
      if (waiting.length === 0) return tags;
      const phase = Math.min(...waiting.map((entry) => entry.phase));
      this.phase = phase;
      const now = waiting.filter((entry) => entry.phase === phase);
      const exchanges = await Promise.all(
        now.map(async (entry) => {
          const exchange = await client.send(entry.request);
          this.early.set(exchange, [...(this.early.get(exchange) ?? []), entry]);
          answered();
          return exchange;
        }),
      );
      exchanges.forEach((exchange, index) => {
        const entry = now[index] as Planned;
        sent.add(entry);
        tags.set(exchange, [...(tags.get(exchange) ?? []), entry]);
        for (const { by, probe } of entry.followUps) {
          const made = [probe.followUp?.(exchange) ?? []].flat();
          const again = probe.repeats ? { followUp: probe.followUp, repeats: true as const } : {};
          // Requests asked again to compare their answers go together, after every other request,
          // so that nothing else is sent between them.
          const next = made.length > 1 ? Math.max(phase + 1, TOGETHER_PHASE) : phase + 1;
          for (const request of made)
            this.add({ request, ...again, ...(probe.private ? { private: true } : {}) }, by, next);
        }
      });
    }
  }
}

/** What the judge is told of an exchange from the plan's entries it answered. */
function tagsOf(planned: readonly Planned[]): ProbeTags {
  const transform = planned.find((p) => p.transform)?.transform;
  return {
    plannedBy: new Set(planned.flatMap((p) => [...p.plannedBy])),
    private: planned.length > 0 && planned.every((p) => p.private),
    ...(transform ? { transform } : {}),
  };
}

export async function planAndJudge(
  spec: SpecModel,
  config: SuiteConfig,
  client: HttpClient,
  rules: readonly Rule[],
  announce?: (line: string) => void,
): Promise<LiveOutcome> {
  const world = new LiveWorld(spec, config);
  const plan = new Plan();

  // A run whose rules plan nothing (they judge the answers of others) needs nothing discovered.
  const planning = rules.some((rule) => rule.plan !== undefined || rule.planOnce !== undefined);
  const discovery = planning ? world.discoveryRequests() : [];
  const discovered = await Promise.all(discovery.map(({ request }) => client.send(request)));
  discovery.forEach(({ op, campaign }, index) => world.learn(op, campaign, discovered[index] as Exchange));
  for (const { request } of discovery) plan.add({ request, phase: 0 }, undefined);

  for (const rule of rules) {
    for (const probe of rule.planOnce?.(world) ?? []) plan.add(probe, rule.id);
    if (!rule.plan) continue;
    for (const op of spec.operations) {
      if (!ruleAppliesTo(rule, op)) continue;
      for (const probe of rule.plan(op, world)) plan.add(probe, rule.id);
    }
  }
  if (world.depth === 'full') announce?.(fullDepthLine(plan.entries.size, client.sent, config.maxRequests));
  const judge = await sentAndJudged(plan, client, spec, config, rules);
  return { tallies: await judge.finish(), judge, world, planned: plan.entries.size };
}

/**
 * Sends the plan and judges each exchange as soon as it and those requested before it are
 * answered (`in-order.ts`): the judging overlaps the requests still in flight.
 */
async function sentAndJudged(
  plan: Plan,
  client: HttpClient,
  spec: SpecModel,
  config: SuiteConfig,
  rules: readonly Rule[],
): Promise<Judge> {
  const options: ObserveOptions = {
    spec,
    keyring: new Keyring({ keys: config.keys, ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}) }),
    basePath: new URL(config.baseUrl).pathname.replace(/\/+$/, ''),
    source: 'live',
  };
  const judgeOf = () => new Judge(rules, ruleContextOf(spec, config, 'live', client.madeUpKey));
  let judge = judgeOf();
  // The exchanges asked for before the plan (discovery, the pre-flight's) are tagged by the plan's
  // first phases: they are ready once those are under way.
  const lastBeforePlan = client.exchanges.at(-1)?.seq ?? 0;
  const settled = new Set<Exchange>(client.exchanges);
  client.onSettled((exchange) => settled.add(exchange));
  const inOrder = new InOrderJudging(
    {
      exchanges: client.exchanges,
      settled: (exchange) => settled.has(exchange),
      tagsOf: (exchange) => {
        const planned = plan.early.get(exchange);
        if (planned) return tagsOf(planned);
        if (exchange.retriedAs !== undefined) return tagsOf([]);
        return exchange.seq <= lastBeforePlan && plan.phase >= 1 ? tagsOf([]) : undefined;
      },
    },
    (exchange, tags) => judge.see(observe(exchange, options, tags)),
  );
  // One pass a turn of the event loop, after the answers of the turn and their tags are in.
  let pending = false;
  const tags = await plan.send(client, () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      inOrder.advance();
    });
  });
  const finalTagsOf = (exchange: Exchange) => tagsOf(tags.get(exchange) ?? []);
  if (!inOrder.finish(finalTagsOf)) {
    judge = judgeOf();
    for (const exchange of client.exchanges) judge.see(observe(exchange, options, finalTagsOf(exchange)));
  }
  return judge;
}

/**
 * What `--depth full` is about to send, said before it starts: the whole catalogue is thousands of
 * requests, and a budget that cuts it leaves the rest not judged.
 */
export function fullDepthLine(planned: number, sent: number, budget: number): string {
  const line = `conformance: --depth full plans ${planned} requests (${sent} sent before the plan)`;
  if (sent + planned <= budget) return `${line}; budget ${budget}\n`;
  return `${line}, but --max-requests ${budget} cuts it: the requests beyond it are not sent and their rules not judged (raise --max-requests to ${sent + planned})\n`;
}
