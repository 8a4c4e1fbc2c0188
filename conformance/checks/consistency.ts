/**
 * Cross-endpoint consistency (§2.1): what the list says about a walk must be what its detail shows.
 * No schema can say this; only comparing the two answers can.
 */
import { stopStatusesOf } from '../../spec/contract.ts';
import type { Stop } from '../../spec/types.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Check } from './check.ts';
import { counted, verdict } from './outcome.ts';
import { judgedWalks, walkCoverage, walkLabel } from './sample.ts';

/** Degrees: far below street scale, far above the floating-point noise of a mean. */
export const CENTROID_TOLERANCE = 1e-6;
/**
 * Part of a walk's extent (its larger span in degrees) a centroid may stray on top of that: room
 * for the ways a correct deployment computes a mean on a sphere (or an ellipsoid), never for a
 * swapped pair or a centroid 0.01° off on a walk of street or village scale.
 */
const CENTROID_EXTENT_SHARE = 1e-3;

type Point = { lat: number; lng: number } | null;

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const RAD = Math.PI / 180;

/** The mean of unit vectors, back to degrees: the centroid on a sphere (undefined at antipodes). */
export function sphericalMean(points: { lat: number; lng: number }[]): Point {
  let x = 0;
  let y = 0;
  let z = 0;
  for (const { lat, lng } of points) {
    x += Math.cos(lat * RAD) * Math.cos(lng * RAD);
    y += Math.cos(lat * RAD) * Math.sin(lng * RAD);
    z += Math.sin(lat * RAD);
  }
  const hyp = Math.hypot(x, y);
  if (hyp === 0 && z === 0) return null;
  return { lat: Math.atan2(z, hyp) / RAD, lng: Math.atan2(y, x) / RAD };
}

/**
 * The centroids a correct deployment may send: the planar or the spherical mean of the stops that
 * have both coordinates (or null when none has), and, only when some stop has a single coordinate,
 * the mean of each coordinate over the stops that have it.
 */
export function acceptableCentroids(stops: Stop[]): Point[] {
  const objects = stops.filter(isObject);
  const located = objects
    .filter((s) => isNumber(s.lat) && isNumber(s.lng))
    .map((s) => ({ lat: s.lat as number, lng: s.lng as number }));
  if (located.length === 0) {
    const lats = objects.map((s) => s.lat).filter(isNumber);
    const lngs = objects.map((s) => s.lng).filter(isNumber);
    return [null, ...(lats.length && lngs.length ? [{ lat: mean(lats), lng: mean(lngs) }] : [])];
  }
  const planar = { lat: mean(located.map((p) => p.lat)), lng: mean(located.map((p) => p.lng)) };
  const candidates: Point[] = [planar, sphericalMean(located)];
  const lats = objects.map((s) => s.lat).filter(isNumber);
  const lngs = objects.map((s) => s.lng).filter(isNumber);
  if (lats.length !== located.length || lngs.length !== located.length) {
    candidates.push({ lat: mean(lats), lng: mean(lngs) });
  }
  return candidates.filter((p) => p !== null);
}

/** How far a centroid may be from a candidate: the fixed floor plus a share of the walk's extent. */
function centroidTolerance(stops: Stop[]): number {
  const objects = stops.filter(isObject);
  const span = (values: number[]) => (values.length ? Math.max(...values) - Math.min(...values) : 0);
  const extent = Math.max(
    span(objects.map((s) => s.lat).filter(isNumber)),
    span(objects.map((s) => s.lng).filter(isNumber)),
  );
  return CENTROID_TOLERANCE + CENTROID_EXTENT_SHARE * extent;
}

/** Whether a summary's lat/lng is a centroid a correct deployment may send for these stops. */
export function centroidAccepted(lat: unknown, lng: unknown, stops: Stop[]): boolean {
  const tolerance = centroidTolerance(stops);
  return acceptableCentroids(stops).some((point) => matches(lat, lng, point, tolerance));
}

function matches(lat: unknown, lng: unknown, point: Point, tolerance: number): boolean {
  if (point === null) return lat === null && lng === null;
  return (
    isNumber(lat) &&
    isNumber(lng) &&
    Math.abs(lat - point.lat) <= tolerance &&
    Math.abs(lng - point.lng) <= tolerance
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
    mock: 'run',
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
      return counted(
        verdict(expected, problems, `${walks.length} walks agree`, walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'CONSISTENCY-002',
    section: '§2.1, §2.4',
    title: 'Each counts[status] equals the number of stops with that status',
    area: 'consistency',
    level: 'required',
    mock: 'run',
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
      return counted(
        verdict(expected, problems, `${walks.length} walks agree`, walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
  {
    id: 'CONSISTENCY-003',
    section: '§2.1',
    title: "The summary's lat/lng is the centroid of the located stops (null when none)",
    area: 'consistency',
    level: 'required',
    mock: 'run',
    decision: 'D-CENTROID',
    hint: `Send the mean latitude and longitude of the stops that have coordinates (planar or spherical, within ${CENTROID_TOLERANCE}° plus ${CENTROID_EXTENT_SHARE} of the walk's extent), and null/null when no stop has any.`,
    async run(ctx) {
      const expected = `lat/lng within ${CENTROID_TOLERANCE}° + ${CENTROID_EXTENT_SHARE} × the walk's extent of the planar or spherical mean of the located stops; null when none`;
      const walks = await judgedWalks(ctx, expected);
      if (!Array.isArray(walks)) return walks;
      const problems = walks.flatMap(({ summary, stops }) => {
        if (centroidAccepted(summary.lat, summary.lng, stops ?? [])) return [];
        const candidates = acceptableCentroids(stops ?? []);
        return [
          `${walkLabel(summary)}: lat/lng ${summary.lat}, ${summary.lng}; the stops give ${candidates.map(shown).join(' or ')}`,
        ];
      });
      return counted(
        verdict(expected, problems, `${walks.length} centroids agree`, walks[0]?.exchange),
        await walkCoverage(ctx, walks.length),
      );
    },
  },
];
