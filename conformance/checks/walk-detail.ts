/** GET /api/v1/walks/{id} (§4.3, §2.2, §2.3): the walks the list names, their ordered stops. */
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiDocument } from '../../spec/contract.ts';
import { stopStatusesOf } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import { overCap, RESPONSE_CAP_FLAG } from '../types.ts';
import type { Check } from './check.ts';
import { advisory, counted, describe, inconclusive, verdict } from './outcome.ts';
import { judgedWalks, walkCoverage, walkLabel } from './sample.ts';

/** The fields a walk's summary and its detail both carry, read from the spec's two schemas. */
function sharedWalkFields(doc: OpenApiDocument): string[] {
  const schemas = doc.components?.schemas ?? {};
  const fields = (name: string) =>
    Object.keys((schemas[name] as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const detail = new Set(fields('WalkDetail'));
  return fields('WalkSummary').filter((field) => detail.has(field));
}

/** Why a walk's stops are not in ascending position, or undefined (live and `--traffic`). */
export function orderProblem(stops: unknown[]): string | undefined {
  const positions = stops.map((s) => (isObject(s) ? s.position : undefined));
  const at = positions.findIndex((p, i) => i > 0 && !((p as number) > (positions[i - 1] as number)));
  return at > 0 ? `position ${String(positions[at])} follows ${String(positions[at - 1])}` : undefined;
}

/** Why a walk's positions are not exactly 1..n, or undefined. */
export function numberingProblem(stops: unknown[]): string | undefined {
  const sorted = stops
    .map((s) => (isObject(s) ? s.position : undefined))
    .sort((a, b) => Number(a) - Number(b));
  const at = sorted.findIndex((p, i) => p !== i + 1);
  return at >= 0 ? `expected position ${at + 1}, found ${JSON.stringify(sorted[at])}` : undefined;
}

/** The stop statuses that are none of §2.4's (the first two). */
export function statusProblems(stops: unknown[], statuses: ReadonlySet<string>): string[] {
  return stops
    .filter((s) => !isObject(s) || !statuses.has(s.status as string))
    .slice(0, 2)
    .map((s) => `status ${JSON.stringify(isObject(s) ? s.status : s)}`);
}

/** Stop ids that are empty, not strings, or repeated (the first two). */
export function stopIdProblems(stops: unknown[]): string[] {
  const seen = new Set<unknown>();
  const found: string[] = [];
  for (const stop of stops) {
    const id = isObject(stop) ? stop.id : undefined;
    if (typeof id !== 'string' || id === '') found.push(`stop id ${JSON.stringify(id)}`);
    else if (seen.has(id)) found.push(`stop id ${id} appears twice`);
    seen.add(id);
  }
  return found.slice(0, 2);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const walkDetailChecks: Check[] = [
  {
    id: 'WALK-DETAIL-001',
    section: '§4.3',
    title: 'Every listed walk can be fetched: 200 with the detail envelope',
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    hint: 'Serve GET /api/v1/walks/{id} for every id the list returns (and list only walks that can be fetched).',
    async run(ctx) {
      const expected = 'each listed walk answers 200 {"ok":true,"data":{id,name,stops}}';
      const sampled = await ctx.data.sampledDetails();
      if (sampled.length === 0) {
        const view = await ctx.data.list200();
        return inconclusive(expected, 'no listed walk to fetch', view.exchange);
      }
      // An answer larger than --max-response-bytes is not judged (the run reports it, exit 2).
      const failed = sampled.filter(({ view }) => !view.walk && !overCap(view.exchange.error));
      if (failed.length === 0 && sampled.every(({ view }) => !view.walk)) {
        return inconclusive(
          expected,
          `every detail was larger than ${RESPONSE_CAP_FLAG}`,
          sampled[0]?.view.exchange,
        );
      }
      if (failed.length > 0 && failed.every(({ view }) => view.exchange.error?.kind === 'budget')) {
        return inconclusive(
          expected,
          'the request budget ran out before the details',
          failed[0]?.view.exchange,
        );
      }
      const problems = failed.map(
        ({ summary, view }) =>
          `${walkLabel(summary)}: ${view.exchange.error ? view.exchange.error.message : `answered ${describe(view.exchange.response)}`}`,
      );
      return counted(
        verdict(
          expected,
          problems,
          `${sampled.length} walks fetched`,
          (failed[0] ?? sampled[0])?.view.exchange,
        ),
        await walkCoverage(ctx, sampled.length),
      );
    },
  },
  {
    id: 'WALK-DETAIL-002',
    section: '§2.2',
    title: "Every field the detail shares with the list's summary (id, name) is equal",
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    hint: 'Return the same id and name in the detail as in the list.',
    async run(ctx) {
      const fields = sharedWalkFields(ctx.contract.doc);
      const expected = `detail ${fields.join(', ')} equal to the summary’s`;
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, walk }) =>
        fields
          .filter(
            (field) =>
              !isDeepStrictEqual(walk[field as keyof typeof walk], summary[field as keyof typeof summary]),
          )
          .map(
            (field) =>
              `${walkLabel(summary)}: detail ${field} ${JSON.stringify(walk[field as keyof typeof walk])} ≠ list ${field} ${JSON.stringify(summary[field as keyof typeof summary])}`,
          ),
      );
      return counted(
        verdict(expected, problems, `${walks.length} walks match`, walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'WALK-DETAIL-003',
    section: '§2.2, §4.3',
    title: 'Stops come in ascending position',
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    hint: 'Sort stops by position before answering.',
    async run(ctx) {
      const expected = 'stops ordered by ascending position';
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) => {
        if (!stops) return [`${walkLabel(summary)}: stops is not an array`];
        const problem = orderProblem(stops);
        return problem ? [`${walkLabel(summary)}: ${problem}`] : [];
      });
      return counted(
        verdict(expected, problems, `${walks.length} walks in order`, walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'WALK-DETAIL-004',
    section: '§2.3',
    title: 'Positions are exactly 1..n',
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    hint: 'Number the stops of a walk 1, 2, … n: 1-based, no gaps, no repeats.',
    async run(ctx) {
      const expected = 'positions 1..n, each once';
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) => {
        if (!stops) return [`${walkLabel(summary)}: stops is not an array`];
        const problem = numberingProblem(stops);
        return problem ? [`${walkLabel(summary)}: ${problem}`] : [];
      });
      return counted(
        verdict(expected, problems, `${walks.length} walks numbered 1..n`, walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'WALK-DETAIL-005',
    section: '§2.3, §2.4',
    title: 'Every stop status is one of the eight statuses',
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    hint: 'Use only the status values of §2.4.',
    async run(ctx) {
      const statuses = new Set(stopStatusesOf(ctx.contract.doc));
      const expected = `status in ${[...statuses].join(', ')}`;
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) =>
        statusProblems(stops ?? [], statuses).map((p) => `${walkLabel(summary)}: ${p}`),
      );
      return counted(
        verdict(expected, problems, 'all statuses known', walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'WALK-DETAIL-006',
    section: '§2.3',
    title: 'Stop ids are non-empty and unique within a walk',
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    hint: 'Give every stop its own non-empty string id.',
    async run(ctx) {
      const expected = 'unique non-empty string stop ids';
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) =>
        stopIdProblems(stops ?? []).map((p) => `${walkLabel(summary)}: ${p}`),
      );
      return counted(
        verdict(expected, problems, 'stop ids unique', walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'WALK-DETAIL-007',
    section: '§2.3',
    title: 'Shape of stop ids and stops with a single coordinate',
    area: 'walk-detail',
    level: 'advisory',
    mock: 'run',
    decision: 'D-STOP-ID, D-COORDS',
    hint: 'The project uses UUID stop ids and never sends a stop with only one coordinate.',
    async run(ctx) {
      const expected = 'project decision: UUID stop ids; a stop has both coordinates or neither';
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const stops = walks.flatMap((w) => w.stops ?? []).filter(isObject);
      const uuids = stops.filter((s) => typeof s.id === 'string' && UUID.test(s.id)).length;
      const half = stops.filter((s) => (s.lat === null) !== (s.lng === null)).length;
      return advisory(
        expected,
        `${uuids} of ${stops.length} stop ids are UUIDs; ${half} stops have one coordinate only`,
        walks[0]?.exchange,
        {
          differs: [...(uuids < stops.length ? ['D-STOP-ID'] : []), ...(half > 0 ? ['D-COORDS'] : [])],
        },
      );
    },
  },
];
