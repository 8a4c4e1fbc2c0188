/**
 * Statistics of repeated measurements, for every tool that measures (the benchmark, the package
 * benchmark): one definition, so a figure called a median is computed the same way everywhere.
 */

/** The middle value; the mean of the two middle ones for an even count; 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
