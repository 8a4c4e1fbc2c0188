/** The benchmark's command line: a full run (default) or `--quick`, and overrides for a tiny run. */
import type { CommandSpec } from '../command-line/flags.ts';
import { choiceListFlag, integerFlag, numberFlag, readFlags } from '../command-line/flags.ts';
import { MAX_WALKS } from '../fixtures/index.ts';

export const COMMAND = {
  name: 'bench',
  usage: 'npm run bench -- [options]',
  summary: `Measures the reference server against bare Express and node:http serving the same bytes:
instructions per request counted by Valgrind's Cachegrind (what the targets judge) and CPU time
per request (reported beside them, with the Prism mock's); its start-up and memory, fixture
generation, and full conformance runs; prints the figures side by side and writes them as JSON.`,
  flags: {
    quick: {
      type: 'boolean',
      help: 'A shorter smoke run (instructions counted on gzip only over 300 requests, 0.5 s CPU rounds, a 10,000-walk large data set)',
    },
    output: { type: 'string', value: 'FILE', help: 'JSON file of every figure (default reports/bench.json)' },
    duration: {
      type: 'string',
      value: 'S',
      help: 'Seconds of each measured CPU-time round (full 1, quick 0.5)',
    },
    rounds: {
      type: 'string',
      value: 'N',
      help: 'Measured CPU-time rounds per target, order rotating (full 5, quick 2)',
    },
    warmup: {
      type: 'string',
      value: 'S',
      help: 'Seconds of unpaced warm-up of each target, followed by one paced round not kept (full 1, quick 0.5; 0: neither)',
    },
    connections: { type: 'string', value: 'N', help: 'Concurrent connections of each load run (default 10)' },
    rate: {
      type: 'string',
      value: 'N',
      help: 'Requests per second sent to each target, the same for all (default 400)',
    },
    'large-walks': {
      type: 'string',
      value: 'N',
      help: 'Walks of the large data set (full 100000, quick 10000)',
    },
    'startup-samples': {
      type: 'string',
      value: 'N',
      help: 'Start-ups measured on the demo data set, median reported (full 3, quick 1)',
    },
    'fixture-sizes': {
      type: 'string',
      value: 'A,B,C',
      help: 'Walk counts whose generation is measured (full 1000,10000,100000)',
    },
    'count-requests': {
      type: 'string',
      value: 'N',
      help: 'Requests between the two instruction counts of each target and request (full 2000, quick 300)',
    },
    'count-warmup': {
      type: 'string',
      value: 'N',
      help: 'Requests of each kind sent before either instruction count (full 300, quick 50)',
    },
    skip: {
      type: 'string',
      value: 'LIST',
      help: 'Leave out sections: instructions, prism, conformance, fixtures, large (comma list)',
    },
  },
} as const satisfies CommandSpec;

export type Section = 'instructions' | 'prism' | 'conformance' | 'fixtures' | 'large';
const SECTIONS: readonly Section[] = ['instructions', 'prism', 'conformance', 'fixtures', 'large'];

export interface BenchOptions {
  mode: 'full' | 'quick';
  output: string;
  durationS: number;
  rounds: number;
  warmupS: number;
  connections: number;
  rate: number;
  largeWalks: number;
  startupSamples: number;
  fixtureSizes: number[];
  /** Instruction counts with Cachegrind: requests between the two counts, and warm-up before them. */
  countRequests: number;
  countWarmup: number;
  skip: Set<Section>;
}

/** The options of a run, or `'help'` for `--help`. */
export function parseBenchFlags(argv: string[]): BenchOptions | 'help' {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const count = (flag: string, raw: string | undefined, fallback: number, max: number) =>
    integerFlag(flag, raw, { min: 1, max }, fallback);
  return {
    mode: quick ? 'quick' : 'full',
    output: values.output ?? 'reports/bench.json',
    durationS: numberFlag('--duration', values.duration, { min: 0, max: 600, above: true }, quick ? 0.5 : 1),
    rounds: count('--rounds', values.rounds, quick ? 2 : 5, 100),
    warmupS: numberFlag('--warmup', values.warmup, { min: 0, max: 600 }, quick ? 0.5 : 1),
    connections: count('--connections', values.connections, 10, 1_000),
    rate: count('--rate', values.rate, 400, 100_000),
    largeWalks: count('--large-walks', values['large-walks'], quick ? 10_000 : 100_000, MAX_WALKS),
    startupSamples: count('--startup-samples', values['startup-samples'], quick ? 1 : 3, 20),
    fixtureSizes: (values['fixture-sizes'] ?? (quick ? '1000,2000,5000' : '1000,10000,100000'))
      .split(',')
      .map((size) => count('--fixture-sizes', size.trim(), 0, MAX_WALKS)),
    countRequests: count('--count-requests', values['count-requests'], quick ? 300 : 2_000, 1_000_000),
    countWarmup: integerFlag(
      '--count-warmup',
      values['count-warmup'],
      { min: 0, max: 1_000_000 },
      quick ? 50 : 300,
    ),
    skip: new Set(choiceListFlag('--skip', values.skip ?? '', SECTIONS)),
  };
}
