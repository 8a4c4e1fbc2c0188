/**
 * The planned endpoints (§4.4: not active; the planned document's paths the spec under test does
 * not list as live), judged only where the spec speaks: they serve no data, to any key. Their status
 * and code are the deployment's choice (NOT-FOUND-005 reports them); a 501 there is a fitting
 * answer, not a server error (ENVELOPE-011 knows the planned paths).
 */
import { answered, describe, requestLine, servesData } from '../core/answers.ts';
import type { Observation } from '../core/observation.ts';
import { NO_SCOPE_KEY, PRIMARY_KEY } from '../core/roles.ts';
import type { Ask, Probe, Rule, World } from '../core/rule.ts';
import { breaks, chose, holds, unjudged } from '../core/rule.ts';
import { pathOf, type OperationModel, type SpecModel } from '../core/spec-model.ts';
import type { ResponseData } from '../core/exchange.ts';
import { isNotFound, notFoundCodes } from './not-found.ts';
import { isPlannedPath } from './requests.ts';

const MOCK_LIVE_ONLY = {
  skip: 'the mock serves the live spec only; it answers other paths with its own problem+json',
};

/** The primary key (every scope it holds), the key without the live scopes (it may hold the planned ones), no key. */
const ASKINGS: readonly Ask[] = [{ key: PRIMARY_KEY }, { key: NO_SCOPE_KEY }, {}];

/** Every planned path (an unknown id in its parameters) asked as each of `ASKINGS`. */
function plannedRequests(world: World): Probe[] {
  const anyLive = world.spec.live[0] as OperationModel;
  return world.spec.plannedPaths.flatMap((template) => {
    const path = pathOf({ path: template }, world.unknownId);
    return ASKINGS.flatMap((ask) => {
      const request = world.request(anyLive, { ...ask, path });
      return request ? [{ request }] : [];
    });
  });
}

/** The answer to a GET of a planned path, or undefined when the exchange is no such read. */
function plannedAnswer(obs: Observation, spec: SpecModel): ResponseData | undefined {
  const response = obs.exchange.response;
  if (obs.op || obs.exchange.request.method !== 'GET' || !response) return undefined;
  return isPlannedPath(spec, obs.path) ? response : undefined;
}

/** Not Implemented: a planned endpoint's fitting answer, the one 5xx that is a choice, not a fault. */
const NOT_IMPLEMENTED = 501;

export const plannedRules: Rule[] = [
  {
    id: 'PLANNED-001',
    section: '§4.4',
    title: 'The planned endpoints serve no data, to any key',
    area: 'not-found',
    level: 'required',
    owasp: ['API9:2023'],
    mock: MOCK_LIVE_ONLY,
    unit: 'requests',
    expected: 'no data from any planned endpoint, whatever the key (any status and code)',
    hint: 'Planned endpoints are not active: answer them with a refusal in the error envelope (404, 501 or 403 all fit), never with data.',
    about: 'answers to its requests',
    planOnce: plannedRequests,
    judge(obs, ctx) {
      const response = plannedAnswer(obs, ctx.spec);
      if (!response) return undefined;
      if (obs.bodyless && response.status >= 200 && response.status <= 299) {
        return unjudged(
          `a planned endpoint answered ${response.status}; the recording holds no body to tell whether it served data`,
          obs,
        );
      }
      return servesData(response)
        ? breaks(`${requestLine(obs)} served data: ${describe(response)}`, obs)
        : holds(obs);
    },
  },
  {
    id: 'NOT-FOUND-005',
    section: '§4.4',
    title: 'What a planned endpoint answers (not active)',
    area: 'not-found',
    level: 'advisory',
    decision: 'D-PLANNED',
    owasp: ['API9:2023'],
    mock: MOCK_LIVE_ONLY,
    unit: 'requests',
    expected:
      'project decision: 404 not_found ("This endpoint is planned and not active yet."), whatever the key',
    hint: 'Planned endpoints are not active; the project answers 404 not_found.',
    about: 'answers to its requests',
    planOnce: plannedRequests,
    judge(obs, ctx) {
      const response = plannedAnswer(obs, ctx.spec);
      if (!response || obs.bodyless || response.status < 300) return undefined;
      // Other 5xx are faults, ENVELOPE-011's to fail.
      if (response.status >= 500 && response.status !== NOT_IMPLEMENTED) return undefined;
      return chose(
        `this deployment answers ${answered(response)}`,
        !isNotFound(response, notFoundCodes(ctx.spec)),
        obs,
      );
    },
  },
];
