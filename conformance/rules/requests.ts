/**
 * The requests rules plan most often, built the same way by each: a collection's page of a given
 * size, the sweep of every listed item, and whether a path is one of the planned (not active)
 * endpoints.
 */
import type { KeyName } from '../core/roles.ts';
import { OTHER_CAMPAIGN_KEY, PRIMARY_KEY } from '../core/roles.ts';
import type { Ask, Probe, World } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { RequestSpec } from '../core/exchange.ts';

/**
 * A collection's page: `small` asks for its `limit` minimum (1), `full` for its maximum, `default`
 * sends no limit. A collection without a `limit` parameter has one page.
 */
export function collectionRequest(
  op: OperationModel,
  world: World,
  ask: Ask,
  size: 'small' | 'full' | 'default' = 'small',
): RequestSpec | undefined {
  const limit = op.limit;
  const query =
    limit && size !== 'default'
      ? `${limit.name}=${size === 'small' ? limit.minimum : limit.maximum}`
      : undefined;
  return world.request(op, { ...ask, ...(query !== undefined && ask.query === undefined ? { query } : {}) });
}

/**
 * A read of an operation that names something real: a collection's page of the given size, a real
 * item, or an operation without path parameters; undefined for an operation whose path names
 * something the run cannot know (neither a collection nor an item of one).
 */
export function readOf(
  op: OperationModel,
  world: World,
  ask: Ask,
  size: 'small' | 'full' | 'default' = 'small',
): RequestSpec | undefined {
  if (op.kind === 'collection') return collectionRequest(op, world, ask, size);
  if (op.kind === 'other' && op.pathParameters.length > 0) return undefined;
  return world.request(op, ask);
}

/** A path template's pattern: `/api/v1/lists/{id}` matches `/api/v1/lists/abc` (and `/api/v1/lists/abc/`). */
export const pathPattern = (template: string, flags = '') =>
  new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}/?$`,
    flags,
  );

/** Whether a path (below the base URL) is one of the spec's planned, not active, endpoints. */
export function isPlannedPath(spec: SpecModel, path: string): boolean {
  return spec.plannedPaths.some((template) => pathPattern(template).test(path));
}

/** The campaigns whose listed items the sweeps fetch, each with its own key. */
const SWEPT: readonly { campaign: 'primary' | 'other'; key: KeyName }[] = [
  { campaign: 'primary', key: PRIMARY_KEY },
  { campaign: 'other', key: OTHER_CAMPAIGN_KEY },
];

/**
 * The sweep: for an item operation, every item its collection listed to the primary and to the
 * other campaign's key (or `--sample N` of them), fetched with the key that listed it; for a
 * collection, the largest pages that listed them. The rules that compare a summary with its detail
 * all plan it, so a detail that got no answer leaves each of them unjudged.
 */
export function sweepRequests(op: OperationModel, world: World): Probe[] {
  const requests =
    op.kind === 'collection'
      ? SWEPT.map(({ key }) => collectionRequest(op, world, { key }, 'full'))
      : op.kind === 'item'
        ? SWEPT.flatMap(({ campaign, key }) =>
            world.sweep(op, campaign).map((id) => world.request(op, { key, id })),
          )
        : [];
  return requests.flatMap((request) => (request ? [{ request }] : []));
}

/**
 * The same requests made again at the end of the run (after every other request), not remembered:
 * a fault that starts late (a tenant cache that goes wrong after some hundreds of requests) meets
 * the probes that ran at the start once more, whatever the run's size. They are the planning rules'
 * own (private): the answers every other rule judges were judged at the start, and counting them
 * twice would weigh the same read double in drift and coverage.
 */
export function atTheEndToo(probes: readonly Probe[]): Probe[] {
  return probes.map((probe) => ({
    ...probe,
    private: true as const,
    request: { ...probe.request, again: (probe.request.again ?? 0) + 1 },
    phase: 3 as const,
  }));
}
