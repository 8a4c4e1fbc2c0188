/**
 * The planned endpoints (written spec §4.4, D-PLANNED): their paths come from
 * `spec/planned.openapi.yaml`, so a path planned there is answered here without a second list.
 */
import { Router } from 'express';
import { PLANNED_SPEC_FILE, pathTemplatesOf } from '../spec-files.ts';
import { ApiError, PLANNED_ENDPOINT } from '../errors.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

export function plannedRouter(specFile: string = PLANNED_SPEC_FILE): Router {
  const router = Router({ caseSensitive: true, strict: false });
  for (const template of pathTemplatesOf(specFile)) {
    router
      .route(pathPattern(template))
      .get((_req, _res, next) => next(new ApiError(PLANNED_ENDPOINT)))
      .all(methodNotAllowed);
  }
  return router;
}

/** `/api/v1/lists/{id}` → a case-sensitive pattern, one trailing slash tolerated, no capture groups. */
function pathPattern(template: string): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('(?:[^/]+)');
  return new RegExp(`^${source}\\/?$`);
}
