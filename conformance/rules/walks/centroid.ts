/**
 * The centroid a walk summary's lat/lng must be (§2.1): the mean of its located stops, with room
 * for the ways a correct deployment computes a mean (planar, or on a sphere), never for a swapped
 * pair or a centroid 0.01° off on a walk of street or village scale.
 */
import { isObject } from '../../../spec/json-value.ts';

/** Degrees: far below street scale, far above the floating-point noise of a mean. */
export const CENTROID_TOLERANCE = 1e-6;
/**
 * Part of a walk's extent (its larger span in degrees) a centroid may stray on top of that: room
 * for the ways a correct deployment computes a mean on a sphere (or an ellipsoid).
 */
export const CENTROID_EXTENT_SHARE = 1e-3;

export type Point = { lat: number; lng: number } | null;

/** What a stop carries that the centroid reads. */
interface Located {
  lat?: unknown;
  lng?: unknown;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const RAD = Math.PI / 180;

/** The mean of unit vectors, back to degrees: the centroid on a sphere (null at antipodes). */
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
export function acceptableCentroids(stops: readonly unknown[]): Point[] {
  const objects = stops.filter(isObject) as Located[];
  const lats = objects.map((s) => s.lat).filter(isNumber);
  const lngs = objects.map((s) => s.lng).filter(isNumber);
  const located = objects
    .filter((s) => isNumber(s.lat) && isNumber(s.lng))
    .map((s) => ({ lat: s.lat as number, lng: s.lng as number }));
  if (located.length === 0) {
    return [null, ...(lats.length && lngs.length ? [{ lat: mean(lats), lng: mean(lngs) }] : [])];
  }
  const planar = { lat: mean(located.map((p) => p.lat)), lng: mean(located.map((p) => p.lng)) };
  const candidates: Point[] = [planar, sphericalMean(located)];
  if (lats.length !== located.length || lngs.length !== located.length) {
    candidates.push({ lat: mean(lats), lng: mean(lngs) });
  }
  return candidates.filter((p) => p !== null);
}

/** How far a centroid may be from a candidate: the fixed floor plus a share of the walk's extent. */
export function centroidTolerance(stops: readonly unknown[]): number {
  const objects = stops.filter(isObject) as Located[];
  const span = (values: number[]) => (values.length ? Math.max(...values) - Math.min(...values) : 0);
  const extent = Math.max(
    span(objects.map((s) => s.lat).filter(isNumber)),
    span(objects.map((s) => s.lng).filter(isNumber)),
  );
  return CENTROID_TOLERANCE + CENTROID_EXTENT_SHARE * extent;
}

/** Whether lat/lng is one of the candidates, within the tolerance. */
export function matchesCentroid(
  lat: unknown,
  lng: unknown,
  candidates: readonly Point[],
  tolerance: number,
): boolean {
  return candidates.some((point) =>
    point === null
      ? lat === null && lng === null
      : isNumber(lat) &&
        isNumber(lng) &&
        Math.abs(lat - point.lat) <= tolerance &&
        Math.abs(lng - point.lng) <= tolerance,
  );
}

/** Whether a summary's lat/lng is a centroid a correct deployment may send for these stops. */
export function centroidAccepted(lat: unknown, lng: unknown, stops: readonly unknown[]): boolean {
  return matchesCentroid(lat, lng, acceptableCentroids(stops), centroidTolerance(stops));
}

export const shownPoint = (point: Point) => (point === null ? 'null' : `${point.lat}, ${point.lng}`);
