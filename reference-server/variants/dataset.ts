/**
 * The data a variant serves: the same walks, with stop ids of another shape (D-STOP-ID) and
 * coordinates rounded (D-COORDS). The repository computes the centroid from these stops, by the
 * variant's method (D-CENTROID), so what the list says still agrees with what the detail shows
 * (written spec §2.1).
 */
import type { Dataset, Walk } from '../../fixtures/index.ts';
import type { Stop } from '../../spec/types.ts';
import type { Variant } from './variant.ts';

export function variantDataset(dataset: Dataset, variant: Variant): Dataset {
  const { stopIds, coordinateDecimals } = variant;
  if (stopIds === 'uuid' && coordinateDecimals === null) return dataset;
  const round = coordinateDecimals === null ? (value: number) => value : rounder(coordinateDecimals);
  const reshape = (stop: Stop): Stop => ({
    ...stop,
    id: stopIdOf(stop, stopIds),
    lat: stop.lat === null ? null : round(stop.lat),
    lng: stop.lng === null ? null : round(stop.lng),
  });
  const walks = dataset.walks.map((walk): Walk => ({ ...walk, stops: walk.stops.map(reshape) }));
  return { ...dataset, walks };
}

/** Unique within a walk, as the written spec asks of stop ids (§2.3). */
function stopIdOf(stop: Stop, shape: Variant['stopIds']): string {
  if (shape === 'prefixed') return `stop_${stop.id.replaceAll('-', '').slice(0, 20)}`;
  if (shape === 'numeric') return String(stop.position);
  return stop.id;
}

function rounder(decimals: number): (value: number) => number {
  const scale = 10 ** decimals;
  return (value) => Math.round(value * scale) / scale;
}
