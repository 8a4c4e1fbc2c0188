/**
 * A walk's stops (§2.2, §2.3, §2.4), on every detail answer: in ascending position, numbered 1..n,
 * each with a status of §2.4 and an id of its own; and, as an advisory, the shape of stop ids and
 * stops with a single coordinate.
 */
import { isObject } from '../../../spec/json-value.ts';
import { requestLine } from '../../core/answers.ts';
import { BodyMemo } from '../../core/body-memo.ts';
import { EvidenceTable } from '../../core/evidence.ts';
import type { Observation } from '../../core/observation.ts';
import type { Across, Rule, RuleContext } from '../../core/rule.ts';
import type { SpecModel } from '../../core/spec-model.ts';
import { breaks, chose, holds, unjudged } from '../../core/rule.ts';
import { askedId, itemOf } from '../pages.ts';
import { sweepRequests } from '../requests.ts';
import { isWalkDetail, isWalkOperation } from './operations.ts';
import { stopStatuses } from './summaries.ts';

/** Why a walk's stops are not in ascending position, or undefined. */
function orderProblem(stops: readonly unknown[]): string | undefined {
  const positions = stops.map((s) => (isObject(s) ? s.position : undefined));
  const at = positions.findIndex((p, i) => i > 0 && !((p as number) > (positions[i - 1] as number)));
  return at > 0 ? `position ${String(positions[at])} follows ${String(positions[at - 1])}` : undefined;
}

/** Why a walk's positions are not exactly 1..n, or undefined. */
function numberingProblem(stops: readonly unknown[]): string | undefined {
  const sorted = stops
    .map((s) => (isObject(s) ? s.position : undefined))
    .sort((a, b) => Number(a) - Number(b));
  const at = sorted.findIndex((p, i) => p !== i + 1);
  return at >= 0 ? `expected position ${at + 1}, found ${JSON.stringify(sorted[at])}` : undefined;
}

/** The stop statuses that are none of §2.4's (the first two). */
function statusProblems(stops: readonly unknown[], statuses: ReadonlySet<string>): string[] {
  return stops
    .filter((s) => !isObject(s) || !statuses.has(s.status as string))
    .slice(0, 2)
    .map((s) => `status ${JSON.stringify(isObject(s) ? s.status : s)}`);
}

/** Stop ids that are empty, not strings, or repeated (the first two). */
function stopIdProblems(stops: readonly unknown[]): string[] {
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

/** A detail answer's stops: `undefined` when the answer is no walk detail, `null` when stops is no array. */
function stopsOf(obs: Observation): unknown[] | null | undefined {
  const walk = obs.op && isWalkDetail(obs.op) ? itemOf(obs) : undefined;
  if (!walk) return undefined;
  return Array.isArray(walk.stops) ? walk.stops : null;
}

/** The stop statuses of a spec as a set, made once. */
const statusSets = new WeakMap<SpecModel, ReadonlySet<string>>();
function statusSetOf(spec: SpecModel): ReadonlySet<string> {
  let known = statusSets.get(spec);
  if (!known) {
    known = new Set(stopStatuses(spec));
    statusSets.set(spec, known);
  }
  return known;
}

/**
 * A rule over one detail's stops: the problems it finds, named after the walk's request. The
 * problems of a detail are remembered by its body (a walk is fetched again and again unchanged).
 */
function stopsRule(
  declaration: Omit<Rule, 'appliesTo' | 'plan' | 'judge' | 'area' | 'level' | 'mock' | 'unit'>,
  problemsOf: (stops: unknown[], statuses: ReadonlySet<string>) => string[],
): Rule {
  const memos = new WeakMap<SpecModel, BodyMemo<string[]>>();
  const memoOf = (spec: SpecModel) => {
    let memo = memos.get(spec);
    if (!memo) {
      memo = new BodyMemo();
      memos.set(spec, memo);
    }
    return memo;
  };
  return {
    ...declaration,
    area: 'walk-detail',
    level: 'required',
    mock: 'run',
    unit: 'walk details',
    sweeps: true,
    appliesTo: isWalkOperation,
    plan: sweepRequests,
    judge(obs, ctx) {
      const stops = stopsOf(obs);
      const response = obs.exchange.response;
      if (stops === undefined || !response) return undefined;
      // One cause, one failure: a stops that is no list is the schema rule's (ENVELOPE-005) to fail;
      // a rule about the order, numbering, statuses or ids of stops has nothing to judge.
      if (stops === null)
        return unjudged(`${requestLine(obs)}: stops is not an array (the schema rule says what it is)`, obs);
      const problems = memoOf(ctx.spec).of(response, () => problemsOf(stops, statusSetOf(ctx.spec)));
      return problems.length === 0 ? holds(obs) : breaks(`${requestLine(obs)}: ${problems.join('; ')}`, obs);
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const stopRules: Rule[] = [
  stopsRule(
    {
      id: 'WALK-DETAIL-003',
      section: '§2.2, §4.3',
      title: 'Stops come in ascending position',
      expected: 'stops ordered by ascending position',
      hint: 'Sort stops by position before answering.',
    },
    (stops) => [orderProblem(stops)].filter((p): p is string => !!p),
  ),
  stopsRule(
    {
      id: 'WALK-DETAIL-004',
      section: '§2.3',
      title: 'Positions are exactly 1..n',
      expected: 'positions 1..n, each once',
      hint: 'Number the stops of a walk 1, 2, … n: 1-based, no gaps, no repeats.',
    },
    (stops) => [numberingProblem(stops)].filter((p): p is string => !!p),
  ),
  stopsRule(
    {
      id: 'WALK-DETAIL-005',
      section: '§2.3, §2.4',
      title: 'Every stop status is one of the statuses of §2.4',
      expected: 'every stop status one of §2.4',
      hint: 'Use only the status values of §2.4.',
    },
    (stops, statuses) => statusProblems(stops, statuses),
  ),
  stopsRule(
    {
      id: 'WALK-DETAIL-006',
      section: '§2.3',
      title: 'Stop ids are non-empty and unique within a walk',
      expected: 'unique non-empty string stop ids',
      hint: 'Give every stop its own non-empty string id.',
    },
    (stops) => stopIdProblems(stops),
  ),
  {
    id: 'WALK-DETAIL-007',
    section: '§2.3',
    title: 'Shape of stop ids and stops with a single coordinate',
    area: 'walk-detail',
    level: 'advisory',
    mock: 'run',
    decision: 'D-STOP-ID, D-COORDS',
    expected: 'project decision: UUID stop ids; a stop has both coordinates or neither',
    hint: 'The project uses UUID stop ids and never sends a stop with only one coordinate.',
    appliesTo: isWalkOperation,
    plan: sweepRequests,
    across: { judge: stopShapesAcross },
  },
];

/** What one walk's detail shows of its stops, and the entry of the earliest detail read. */
interface StopShapes {
  stops: number;
  uuids: number;
  half: number;
  seq: number;
}

/**
 * WALK-DETAIL-007: per walk (its earliest detail, however often fetched), its stops, UUID ids and
 * half-located stops.
 */
function stopShapesAcross(ctx: RuleContext): Across {
  const walks = ctx.state.table<StopShapes>('WALK-DETAIL-007 walks', (kept, other) =>
    other.seq < kept.seq ? other : kept,
  );
  const first = new EvidenceTable(ctx.state, 'WALK-DETAIL-007 evidence', 1);
  return {
    see(obs) {
      const id = askedId(obs);
      const known = id === undefined ? undefined : walks.get(id);
      if (id === undefined || (known && known.seq <= obs.exchange.seq)) return;
      const stops = stopsOf(obs);
      if (!stops) return;
      const objects = stops.filter(isObject);
      first.keep('first', obs);
      walks.set(id, {
        stops: objects.length,
        uuids: objects.filter((s) => typeof s.id === 'string' && UUID.test(s.id)).length,
        half: objects.filter((s) => (s.lat === null) !== (s.lng === null)).length,
        seq: obs.exchange.seq,
      });
    },
    *finish() {
      if (walks.size === 0) return;
      let stops = 0;
      let uuids = 0;
      let half = 0;
      for (const [, walk] of walks.entries()) {
        stops += walk.stops;
        uuids += walk.uuids;
        half += walk.half;
      }
      const differs = [...(uuids < stops ? ['D-STOP-ID'] : []), ...(half > 0 ? ['D-COORDS'] : [])];
      yield chose(
        `${uuids} of ${stops} stop ids are UUIDs; ${half} stops have one coordinate only`,
        differs,
        first.get('first'),
      );
    },
  };
}
