/**
 * Child process of the benchmark: generates one data set and prints, as one JSON line, how long
 * generation took and the process's peak resident memory. Run in a fresh process per size so
 * the peaks do not mix.
 */
import { generateDataset } from '../../fixtures/index.ts';
import { walksOrExit } from './walks-argument.ts';

const options = walksOrExit(
  'generate-fixtures.ts',
  'Generates a data set of WALKS walks; prints the generation time and peak memory as JSON.',
  process.argv.slice(2),
);
if (typeof options === 'number') process.exit(options);
const { walks } = options;
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
