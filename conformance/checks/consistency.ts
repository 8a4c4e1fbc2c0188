/**
 * Cross-endpoint consistency (§2.1): what the list says about a walk must be what its detail shows.
 * No schema can say this; only comparing the two answers can.
 */
import { stopStatusesOf } from '../../spec/contract.ts';
import type { Stop } from '../../spec/types.ts';
import { isObject } from '../data.ts';
import type { Check } from './check.ts';
import { verdict } from './outcome.ts';
import { judgedWalks, walkLabel } from './sample.ts';

/** Degrees; far below street scale, far above floating-point noise of a mean. */
export const CENTROID_TOLERANCE = 1e-6;

type Point = { lat: number; lng: number } | null;

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The centroids a correct deployment may send: the mean of the stops that have both coordinates
 * (or null when none has), and, only when some stop has a single coordinate, the mean of each
 * coordinate over the stops that have it.
 */
export function acceptableCentroids(stops: Stop[]): Point[] {
  const objects = stops.filter(isObject);
  const located = objects.filter((s) => isNumber(s.lat) && isNumber(s.lng));
  const both: Point = located.length
    ? { lat: mean(located.map((s) => s.lat as number)), lng: mean(located.map((s) => s.lng as number)) }
    : null;
  const lats = objects.map((s) => s.lat).filter(isNumber);
  const lngs = objects.map((s) => s.lng).filter(isNumber);
  if (lats.length === located.length && lngs.length === located.length) return [both];
  return [both, lats.length && lngs.length ? { lat: mean(lats), lng: mean(lngs) } : null];
}

function matches(lat: unknown, lng: unknown, point: Point): boolean {
  if (point === null) return lat === null && lng === null;
  return (
    isNumber(lat) &&
    isNumber(lng) &&
    Math.abs(lat - point.lat) <= CENTROID_TOLERANCE &&
    Math.abs(lng - point.lng) <= CENTROID_TOLERANCE
  );
}

const shown = (point: Point) => (point === null ? 'null' : `${point.lat}, ${point.lng}`);

export const consistencyChecks: Check[] = [
  {
    id: 'CONSISTENCY-001',
    section: '§2.1',
    title: "The summary's count equals the number of stops in the detail",
    area: 'consistency',
    level: 'required',
    hint: 'Compute count from the walk’s stops (the same stops the detail returns).',
    async run(ctx) {
      const expected = 'count = number of stops';
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks
        .filter(({ summary, stops }) => summary.count !== stops?.length)
        .map(
          ({ summary, stops }) =>
            `${walkLabel(summary)}: count ${JSON.stringify(summary.count)}, ${stops?.length ?? 'no'} stops`,
        );
      return verdict(expected, problems, `${walks.length} walks agree`, walks[0]?.exchange);
    },
  },
  {
    id: 'CONSISTENCY-002',
    section: '§2.1, §2.4',
    title: 'Each counts[status] equals the number of stops with that status',
    area: 'consistency',
    level: 'required',
    hint: 'Compute counts per status from the walk’s stops.',
    async run(ctx) {
      const statuses = stopStatusesOf(ctx.contract.doc);
      const expected = 'counts[status] = stops with that status, for every status';
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) => {
        const counts: Record<string, unknown> = isObject(summary.counts) ? summary.counts : {};
        return statuses
          .map((status) => ({
            status,
            real: (stops ?? []).filter((s) => isObject(s) && s.status === status).length,
          }))
          .filter(({ status, real }) => counts[status] !== real)
          .slice(0, 2)
          .map(
            ({ status, real }) =>
              `${walkLabel(summary)}: counts.${status} is ${JSON.stringify(counts[status])}, ${real} stops have it`,
          );
      });
      return verdict(expected, problems, `${walks.length} walks agree`, walks[0]?.exchange);
    },
  },
  {
    id: 'CONSISTENCY-003',
    section: '§2.1',
    title: "The summary's lat/lng is the centroid of the located stops (null when none)",
    area: 'consistency',
    level: 'required',
    decision: 'D-CENTROID',
    hint: `Send the mean latitude and longitude of the stops that have coordinates (within ${CENTROID_TOLERANCE}°), and null/null when no stop has any.`,
    async run(ctx) {
      const expected = `lat/lng within ${CENTROID_TOLERANCE}° of the mean of the located stops; null when none`;
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) => {
        const candidates = acceptableCentroids(stops ?? []);
        if (candidates.some((point) => matches(summary.lat, summary.lng, point))) return [];
        return [
          `${walkLabel(summary)}: lat/lng ${summary.lat}, ${summary.lng}; the stops give ${candidates.map(shown).join(' or ')}`,
        ];
      });
      return verdict(expected, problems, `${walks.length} centroids agree`, walks[0]?.exchange);
    },
  },
];
