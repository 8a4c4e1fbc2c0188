/** The benchmark's command line: a full run (default) or `--quick`, and overrides for a tiny run. */
import type { CommandSpec } from '../command-line/flags.ts';
import { choiceListFlag, integerFlag, numberFlag, readFlags } from '../command-line/flags.ts';
import { MAX_WALKS } from '../fixtures/index.ts';

export const COMMAND = {
  name: 'bench',
  usage: 'npm run bench -- [options]',
  summary: `Measures the reference server against bare Express and node:http serving the same bytes and
against the Prism mock, its start-up and memory, fixture generation, and full conformance runs;
prints the figures side by side and writes them as JSON.`,
  flags: {
    quick: { type: 'boolean', help: 'A shorter smoke run (0.5 s load rounds, a 10,000-walk large data set)' },
    output: { type: 'string', value: 'FILE', help: 'JSON file of every figure (default reports/bench.json)' },
    duration: {
      type: 'string',
      value: 'S',
      help: 'Seconds of each measured load round (full 1.25, quick 0.5)',
    },
    rounds: {
      type: 'string',
      value: 'N',
      help: 'Measured rounds per target, order rotating (full 9, quick 2)',
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
    skip: {
      type: 'string',
      value: 'LIST',
      help: 'Leave out sections: prism, conformance, fixtures, large (comma list)',
    },
  },
} as const satisfies CommandSpec;

export type Section = 'prism' | 'conformance' | 'fixtures' | 'large';
const SECTIONS: readonly Section[] = ['prism', 'conformance', 'fixtures', 'large'];

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
    durationS: numberFlag(
      '--duration',
      values.duration,
      { min: 0, max: 600, above: true },
      quick ? 0.5 : 1.25,
    ),
    rounds: count('--rounds', values.rounds, quick ? 2 : 9, 100),
    warmupS: numberFlag('--warmup', values.warmup, { min: 0, max: 600 }, quick ? 0.5 : 1),
    connections: count('--connections', values.connections, 10, 1_000),
    rate: count('--rate', values.rate, 400, 100_000),
    largeWalks: count('--large-walks', values['large-walks'], quick ? 10_000 : 100_000, MAX_WALKS),
    startupSamples: count('--startup-samples', values['startup-samples'], quick ? 1 : 3, 20),
    fixtureSizes: (values['fixture-sizes'] ?? (quick ? '1000,2000,5000' : '1000,10000,100000'))
      .split(',')
      .map((size) => count('--fixture-sizes', size.trim(), 0, MAX_WALKS)),
    skip: new Set(choiceListFlag('--skip', values.skip ?? '', SECTIONS)),
  };
}
