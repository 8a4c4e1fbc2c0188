/**
 * A live run: discovery, then every rule's plan on every operation it applies to, the requests
 * deduplicated and sent phase by phase through the run's one client, then every exchange judged by
 * the one judge (`judge.ts`), exactly as a recording's would be. Which rule asked for a request is
 * kept, so a request that got no answer leaves exactly those rules unjudged.
 */
import type { HttpClient } from '../client.ts';
import { Keyring } from '../core/credentials.ts';
import { observe, type ObserveOptions } from '../core/observe.ts';
import type { Probe, Rule, RuleContext } from '../core/rule.ts';
import { ruleAppliesTo } from '../core/rule.ts';
import type { SpecModel } from '../core/spec-model.ts';
import type { Exchange, RequestSpec, SuiteConfig } from '../types.ts';
import { keyEcho } from './key-echo.ts';
import { Judge, type Tally } from './judge.ts';
import { LiveWorld } from './world.ts';

interface Planned {
  request: RequestSpec;
  phase: number;
  plannedBy: Set<string>;
  /** Private only when every rule that asked for it asked privately. */
  private: boolean;
  transform?: string;
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
  ]);
}

export function ruleContextOf(
  spec: SpecModel,
  config: SuiteConfig,
  source: 'live' | 'traffic',
  madeUpKey?: string,
): RuleContext {
  return {
    spec,
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

export async function runLive(
  spec: SpecModel,
  config: SuiteConfig,
  client: HttpClient,
  rules: readonly Rule[],
): Promise<LiveOutcome> {
  const world = new LiveWorld(spec, config);
  const entries = new Map<string, Planned>();
  const add = (probe: Probe, by: string | undefined) => {
    const key = requestKey(probe.request);
    const phase = probe.phase ?? 1;
    const known = entries.get(key);
    if (known) {
      if (by) known.plannedBy.add(by);
      known.private &&= probe.private === true;
      known.phase = Math.min(known.phase, phase);
      return;
    }
    entries.set(key, {
      request: probe.request,
      phase,
      plannedBy: new Set(by ? [by] : []),
      private: probe.private === true,
      ...(probe.transform ? { transform: probe.transform } : {}),
    });
  };

  const discovery = world.discoveryRequests();
  const discovered = await Promise.all(discovery.map(({ request }) => client.send(request)));
  discovery.forEach(({ op, campaign }, index) => world.learn(op, campaign, discovered[index] as Exchange));
  for (const { request } of discovery) add({ request, phase: 0 }, undefined);

  for (const rule of rules) {
    for (const probe of rule.planOnce?.(world) ?? []) add(probe, rule.id);
    if (!rule.plan) continue;
    for (const op of spec.operations) {
      if (!ruleAppliesTo(rule, op)) continue;
      for (const probe of rule.plan(op, world)) add(probe, rule.id);
    }
  }

  const tags = new Map<Exchange, Planned[]>();
  const phases = [...new Set([...entries.values()].map((e) => e.phase))].sort((a, b) => a - b);
  for (const phase of phases) {
    const now = [...entries.values()].filter((e) => e.phase === phase);
    const exchanges = await Promise.all(now.map((entry) => client.send(entry.request)));
    exchanges.forEach((exchange, index) => {
      const list = tags.get(exchange) ?? [];
      list.push(now[index] as Planned);
      tags.set(exchange, list);
    });
  }

  const judge = new Judge(rules, ruleContextOf(spec, config, 'live', client.madeUpKey));
  const options: ObserveOptions = {
    spec,
    keyring: new Keyring({ keys: config.keys, ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}) }),
    basePath: new URL(config.baseUrl).pathname.replace(/\/+$/, ''),
    source: 'live',
  };
  for (const exchange of client.exchanges) {
    const planned = tags.get(exchange) ?? [];
    const plannedBy = new Set(planned.flatMap((p) => [...p.plannedBy]));
    const transform = planned.find((p) => p.transform)?.transform;
    judge.see(
      observe(exchange, options, {
        plannedBy,
        private: planned.length > 0 && planned.every((p) => p.private),
        ...(transform ? { transform } : {}),
      }),
    );
  }
  return { tallies: judge.finish(), judge, world, planned: entries.size };
}
