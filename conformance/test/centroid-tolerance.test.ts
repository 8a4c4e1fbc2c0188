/**
 * CONSISTENCY-003's tolerance is fair to correct servers and still strict: a planar or a spherical
 * mean passes on a walk spread over kilometres, a centroid 0.01° off or with lat and lng swapped
 * fails, and null is the only answer for a walk without located stops.
 */
import { describe, expect, it } from 'vitest';
import type { Stop } from '../../spec/types.ts';
import { centroidAccepted, sphericalMean } from '../rules/walks/centroid.ts';

const stop = (lat: number | null, lng: number | null, position: number): Stop => ({
  id: `s${position}`,
  lat,
  lng,
  status: 'not_visited',
  position,
});

/** A rural walk: four farms some 20 km apart around 52° N. */
const rural = [stop(52.1, 4.9, 1), stop(52.3, 5.2, 2), stop(52.05, 5.25, 3), stop(52.28, 4.85, 4)];
const located = rural.map((s) => ({ lat: s.lat as number, lng: s.lng as number }));
const planar = {
  lat: located.reduce((a, p) => a + p.lat, 0) / located.length,
  lng: located.reduce((a, p) => a + p.lng, 0) / located.length,
};
const sphere = sphericalMean(located);

describe('centroid tolerance', () => {
  it('is a case where planar and spherical means differ by more than 1e-6°', () => {
    expect(
      Math.max(Math.abs((sphere?.lat ?? 0) - planar.lat), Math.abs((sphere?.lng ?? 0) - planar.lng)),
    ).toBeGreaterThan(1e-6);
  });

  it('accepts the planar and the spherical mean', () => {
    expect(centroidAccepted(planar.lat, planar.lng, rural)).toBe(true);
    expect(centroidAccepted(sphere?.lat, sphere?.lng, rural)).toBe(true);
  });

  it('refuses a centroid 0.01° off, swapped coordinates, and 0,0 for an unlocated walk', () => {
    expect(centroidAccepted(planar.lat + 0.01, planar.lng, rural)).toBe(false);
    expect(centroidAccepted(planar.lat, planar.lng - 0.01, rural)).toBe(false);
    expect(centroidAccepted(planar.lng, planar.lat, rural)).toBe(false);
    const street = [stop(40.7128, -74.006, 1), stop(40.7131, -74.0055, 2)];
    expect(centroidAccepted(40.71295 + 0.001, -74.00575, street)).toBe(false);
    expect(centroidAccepted(40.71295, -74.00575, street)).toBe(true);
    const unlocated = [stop(null, null, 1)];
    expect(centroidAccepted(null, null, unlocated)).toBe(true);
    expect(centroidAccepted(0, 0, unlocated)).toBe(false);
  });
});
