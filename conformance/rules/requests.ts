/**
 * The requests rules plan most often, built the same way by each: a collection's page of a given
 * size, and whether a path is one of the planned (not active) endpoints.
 */
import type { Ask, World } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { RequestSpec } from '../types.ts';

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
    limit && size !== 'default' ? `${limit.name}=${size === 'small' ? limit.minimum : limit.maximum}` : undefined;
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
    `^${template.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}/?$`,
    flags,
  );

/** Whether a path (below the base URL) is one of the spec's planned, not active, endpoints. */
export function isPlannedPath(spec: SpecModel, path: string): boolean {
  return spec.plannedPaths.some((template) => pathPattern(template).test(path));
}
