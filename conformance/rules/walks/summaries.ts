/**
 * Walk summaries (§2.1, §2.4), on every answer that carries them: their fields and types, the
 * `counts` of every stop status and no other, and the links to the walk in the dashboard and the
 * app, with the deployment's one web base and the campaign's one slug.
 */
import { stopStatusesOf } from '../../../spec/contract.ts';
import { WEB_BASE_URL_NAME } from '../../../spec/facts.ts';
import { isObject } from '../../../spec/json-value.ts';
import { requestLine } from '../../core/answers.ts';
import { BodyMemo } from '../../core/body-memo.ts';
import type { Observation } from '../../core/observation.ts';
import type { Judgement, Rule } from '../../core/rule.ts';
import { breaks, chose, holds } from '../../core/rule.ts';
import type { SpecModel } from '../../core/spec-model.ts';
import { validationOf } from '../../core/drift-analysis.ts';
import { itemSchemaOf } from '../item-schemas.ts';
import { itemOf, pageOf } from '../pages.ts';
import { collectionRequest } from '../requests.ts';
import { PRIMARY_KEY } from '../../core/roles.ts';
import type { WalkLinks } from './links.ts';
import { linkSpread, linksOfWalk, walkLabel } from './links.ts';
import { isWalkList, isWalkOperation } from './operations.ts';

const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;

/** The walks of a list answer (empty for any other answer). */
const walksOf = (obs: Observation) => (obs.op && isWalkList(obs.op) ? (pageOf(obs) ?? []) : []);

/** One verdict per walk: its problems, or that it holds. */
function perWalk(
  obs: Observation,
  walks: readonly unknown[],
  problemsOf: (walk: unknown, index: number) => string[],
): Judgement[] {
  return walks.map((walk, index) => {
    const problems = problemsOf(walk, index);
    return problems.length === 0 ? holds(obs) : breaks(at(obs, problems.join('; ')), obs);
  });
}

const statuses = new WeakMap<SpecModel, readonly string[]>();

/** The stop statuses of §2.4 as the spec under test lists them: the keys `counts` must have. */
export function stopStatuses(spec: SpecModel): readonly string[] {
  let known = statuses.get(spec);
  if (!known) {
    known = stopStatusesOf(spec.doc);
    statuses.set(spec, known);
  }
  return known;
}

/**
 * The links of a list answer's walks, taken apart once for every rule that reads them, and once
 * for every answer with the same body (a list is polled again and again).
 */
const answerLinks = new BodyMemo<(WalkLinks | string[])[]>();
function linksIn(obs: Observation): (WalkLinks | string[])[] {
  const walks = walksOf(obs);
  const response = obs.exchange.response;
  return response && walks.length > 0 ? answerLinks.of(response, () => walks.map(linksOfWalk)) : [];
}

/** The problems of each answer's `counts`, by its body, per spec (whose statuses decide them). */
const closedCounts = new WeakMap<SpecModel, BodyMemo<(string | undefined)[]>>();
function closedCountsMemo(spec: SpecModel): BodyMemo<(string | undefined)[]> {
  let memo = closedCounts.get(spec);
  if (!memo) {
    memo = new BodyMemo();
    closedCounts.set(spec, memo);
  }
  return memo;
}

const usableLinks = (obs: Observation) => linksIn(obs).filter((l): l is WalkLinks => !Array.isArray(l));

/** The walks of an answer that carry `counts`: list items, or a detail's data. */
function walksWithCounts(obs: Observation): readonly unknown[] {
  const detail = obs.op && !isWalkList(obs.op) ? itemOf(obs) : undefined;
  return detail ? [detail] : walksOf(obs);
}

/** Every `counts` of some walks, each with how reports name its walk. */
function countsIn(walks: readonly unknown[]): { label: string; counts: unknown }[] {
  return walks.flatMap((walk, index) =>
    isObject(walk) && 'counts' in walk ? [{ label: walkLabel(walk, index), counts: walk.counts }] : [],
  );
}

const fullList = (
  op: Parameters<NonNullable<Rule['plan']>>[0],
  world: Parameters<NonNullable<Rule['plan']>>[1],
) => {
  const request = collectionRequest(op, world, { key: PRIMARY_KEY }, 'full');
  return request ? [{ request }] : [];
};

export const summaryRules: Rule[] = [
  {
    id: 'WALKS-LIST-006',
    section: '§2.1',
    title: 'Every walk summary has the fields of §2.1 with their types',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    unit: 'walk summaries',
    expected: "every summary valid against the schema of the list's items",
    hint: 'Give each summary id (UUID), name, lat/lng (number or null), count, counts, web_url and app_link.',
    appliesTo: isWalkList,
    plan: fullList,
    judge(obs, ctx) {
      const walks = walksOf(obs);
      const name = obs.op ? itemSchemaOf(ctx.spec, obs.op)?.name : undefined;
      if (walks.length === 0 || !name || !obs.op) return undefined;
      // A page valid against its schema has every summary valid against the schema of its items:
      // each answer is validated once, and its summaries one by one only when it is not valid.
      if (validationOf(obs.exchange, obs.op.operationId, ctx.spec)?.open.valid)
        return walks.map(() => holds(obs));
      return perWalk(obs, walks, (walk, index) => {
        const result = ctx.spec.contract.validateSchema(name, walk);
        return result.valid ? [] : [`${walkLabel(walk, index)}: ${result.errors.slice(0, 3).join('; ')}`];
      });
    },
  },
  {
    id: 'WALKS-LIST-007',
    section: '§2.1, §2.4',
    title: 'counts has every stop status as a key, 0 when no stop has it',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    unit: 'walk summaries',
    expected: 'counts with every status of §2.4 as a key, each an integer ≥ 0',
    hint: 'Always send every status key of §2.4 in counts, with 0 for the statuses no stop has.',
    appliesTo: isWalkList,
    plan: fullList,
    judge(obs, ctx) {
      const walks = walksOf(obs);
      if (walks.length === 0) return undefined;
      const keys = stopStatuses(ctx.spec);
      return perWalk(obs, walks, (walk, index) => {
        const counts: unknown = isObject(walk) ? walk.counts : undefined;
        if (!isObject(counts))
          return [`${walkLabel(walk, index)}: counts is ${JSON.stringify(counts) ?? 'missing'}`];
        return keys
          .filter((s) => !(Number.isInteger(counts[s]) && (counts[s] as number) >= 0))
          .map((s) => `${walkLabel(walk, index)}: counts.${s} is ${JSON.stringify(counts[s]) ?? 'missing'}`);
      });
    },
  },
  {
    id: 'WALKS-LIST-015',
    section: '§2.1, §2.4',
    title: 'counts is a closed set: every status key and no other, on every walk of every answer',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    unit: 'walks (in every answer)',
    expected: 'counts with exactly the status keys of §2.4',
    hint: 'Send exactly the status keys of §2.4 in counts: no extra key (a new status, a total), none missing.',
    appliesTo: isWalkOperation,
    plan: fullList,
    judge(obs, ctx) {
      const response = obs.exchange.response;
      const walks = walksWithCounts(obs);
      if (!response || walks.length === 0) return undefined;
      // Remembered by the body, once the answer is known to carry walks: what follows reads them alone.
      const problems = closedCountsMemo(ctx.spec).of(response, () => {
        const keys = stopStatuses(ctx.spec);
        const known = new Set(keys);
        return countsIn(walks).map(({ label, counts }) => {
          if (!isObject(counts)) return `${label}: counts is ${JSON.stringify(counts)}`;
          const extra = Object.keys(counts).filter((k) => !known.has(k));
          const missing = keys.filter((k) => !(k in counts));
          if (extra.length === 0 && missing.length === 0) return undefined;
          const parts = [
            extra.length ? `extra key(s) ${extra.join(', ')}` : '',
            missing.length ? `missing ${missing.join(', ')}` : '',
          ];
          return `${label}: ${parts.filter(Boolean).join(', ')}`;
        });
      });
      if (problems.length === 0) return undefined;
      return problems.map((problem) => (problem === undefined ? holds(obs) : breaks(at(obs, problem), obs)));
    },
  },
  {
    id: 'WALKS-LIST-008',
    section: '§2.1',
    title: "web_url and app_link have their shapes, share base and slug, and name the walk's own id",
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    unit: 'walk summaries',
    expected:
      'web_url …/dashboard/<slug>/walks/<id> and app_link …/open/<slug>/walks/<id>, same base and slug',
    hint: 'web_url = {web_base_url}/dashboard/<slug>/walks/<id>, app_link = {web_base_url}/open/<slug>/walks/<id>, with the walk’s own id.',
    appliesTo: isWalkList,
    plan: fullList,
    judge(obs) {
      // A walk that is not an object has no links to judge (the schema rules say what it is).
      const links = linksIn(obs).filter((found) => !Array.isArray(found) || found.length > 0);
      if (links.length === 0) return undefined;
      return links.map((found) =>
        Array.isArray(found) ? breaks(at(obs, found.join('; ')), obs) : holds(obs),
      );
    },
  },
  {
    id: 'WALKS-LIST-009',
    section: '§2.1',
    title: 'The walks of one answer share one web base and one campaign slug',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    expected: 'one {web_base_url} and one <campaign_slug> across the walks of an answer',
    hint: 'Build every link from the deployment’s one web base URL and the campaign’s one slug.',
    appliesTo: isWalkList,
    plan: fullList,
    judge(obs) {
      const links = usableLinks(obs);
      if (links.length < 2) return undefined;
      const { problems } = linkSpread(links);
      return problems.length === 0 ? holds(obs) : breaks(at(obs, problems.join('; ')), obs);
    },
  },
  {
    id: 'WALKS-LIST-010',
    section: '§2.1',
    title: 'Links use the configured web base URL',
    area: 'walks-list',
    level: 'required',
    mock: 'run',
    needsWebBaseUrl: true,
    unit: 'walk summaries',
    expected: 'links start with the configured {web_base_url}',
    hint: 'Build web_url and app_link from the deployment’s configured {web_base_url}.',
    appliesTo: isWalkList,
    plan: fullList,
    judge(obs, ctx) {
      const base = ctx.webBaseUrl?.replace(/\/+$/, '');
      const links = usableLinks(obs);
      if (base === undefined || links.length === 0) return undefined;
      return links.map(({ label, web, app }) =>
        web.base.replace(/\/+$/, '') === base && app.base.replace(/\/+$/, '') === base
          ? holds(obs)
          : breaks(at(obs, `${label}: links on ${web.base}, not ${base}`), obs),
      );
    },
  },
  {
    id: 'WALKS-LIST-013',
    section: '§2.1',
    title: 'Which web base URL and campaign slug the deployment uses',
    area: 'walks-list',
    level: 'advisory',
    mock: 'run',
    decision: 'D-WEB-BASE',
    expected: 'a configuration value of the deployment (reported)',
    hint: `Set ${WEB_BASE_URL_NAME} to have the base checked.`,
    appliesTo: isWalkList,
    plan: fullList,
    judge(obs) {
      const [first] = usableLinks(obs);
      return first
        ? chose(`web base ${first.web.base}, campaign slug ${first.web.slug}`, false, obs)
        : undefined;
    },
  },
];
