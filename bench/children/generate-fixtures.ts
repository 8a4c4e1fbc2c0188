/**
 * Child process of the benchmark: generates one data set and prints, as one JSON line, how long
 * generation took and the process's peak resident memory. Run in a fresh process per size so
 * the peaks do not mix.
 */
import { generateDataset } from '../../fixtures/index.ts';

const walks = Number(process.argv[2]);
if (!Number.isInteger(walks) || walks < 0) throw new RangeError('usage: generate-fixtures.ts WALKS');
const started = performance.now();
const dataset = generateDataset({ walks });
const generationMs = performance.now() - started;
let stops = 0;
for (const walk of dataset.walks) stops += walk.stops.length;
process.stdout.write(
  `${JSON.stringify({
    walks,
    allWalks: dataset.walks.length,
    stops,
    generationMs,
    // maxRSS is in kilobytes.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
