/** The benchmark's command line: a full run (default) or `--quick`, and overrides for a tiny run. */
import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run bench -- [options]

Measures the reference server against bare Express and node:http serving the same bytes and
against the Prism mock, its start-up and memory, fixture generation, and full conformance runs;
prints the figures side by side and writes them as JSON.

Options:
  --quick                 a shorter smoke run (0.5 s load rounds, a 10,000-walk large data set)
  --output FILE           JSON file of every figure (default reports/bench.json)
  --duration S            seconds of each measured load round (full 1.25, quick 0.5)
  --rounds N              measured rounds per target, order rotating (full 3, quick 2)
  --warmup S              seconds of unpaced warm-up of each target before its rounds (full 1, quick 0.5)
  --connections N         concurrent connections of each load run (default 10)
  --rate N                requests per second sent to each target, the same for all (default 400)
  --large-walks N         walks of the large data set (full 100000, quick 10000)
  --startup-samples N     start-ups measured on the demo data set, median reported (full 3, quick 1)
  --fixture-sizes A,B,C   walk counts whose generation is measured (full 1000,10000,100000)
  --skip LIST             leave out sections: prism, conformance, fixtures, large (comma list)
  --help                  show this help and exit
`;

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
  help: boolean;
}

export function parseBenchFlags(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      output: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      rate: { type: 'string' },
      'large-walks': { type: 'string' },
      'startup-samples': { type: 'string' },
      'fixture-sizes': { type: 'string' },
      skip: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const quick = values.quick ?? false;
  return {
    mode: quick ? 'quick' : 'full',
    output: values.output ?? 'reports/bench.json',
    durationS: positive('--duration', values.duration, quick ? 0.5 : 1.25, 600),
    rounds: Math.round(positive('--rounds', values.rounds, quick ? 2 : 3, 100)),
    warmupS: positive('--warmup', values.warmup, quick ? 0.5 : 1, 600, true),
    connections: Math.round(positive('--connections', values.connections, 10, 1_000)),
    rate: Math.round(positive('--rate', values.rate, 400, 100_000)),
    largeWalks: Math.round(
      positive('--large-walks', values['large-walks'], quick ? 10_000 : 100_000, 2_000_000),
    ),
    startupSamples: Math.round(positive('--startup-samples', values['startup-samples'], quick ? 1 : 3, 20)),
    fixtureSizes: (values['fixture-sizes'] ?? (quick ? '1000,2000,5000' : '1000,10000,100000'))
      .split(',')
      .map((size) => Math.round(positive('--fixture-sizes', size, 0, 2_000_000))),
    skip: sectionList(values.skip ?? ''),
    help: values.help ?? false,
  };
}

function positive(
  name: string,
  raw: string | undefined,
  fallback: number,
  max: number,
  zeroOk = false,
): number {
  if (raw === undefined) return fallback;
  const value = /^[0-9]+(\.[0-9]+)?$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(value <= max && (zeroOk ? value >= 0 : value > 0))) {
    throw new RangeError(
      `${name} must be a number ${zeroOk ? 'from 0' : 'above 0'} up to ${max}, got ${raw}`,
    );
  }
  return value;
}

function sectionList(raw: string): Set<Section> {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(SECTIONS as readonly string[]).includes(name)) {
      throw new RangeError(`--skip takes ${SECTIONS.join(', ')}; got ${name}`);
    }
  }
  return new Set(names as Section[]);
}
