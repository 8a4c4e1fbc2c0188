/**
 * The flags the reference server and the sandbox share for what prepares a partner for a real
 * deployment: `--variant`, `--latency`, `--faults`, `--fault-kinds`, `--fault-seed`. Parsed once
 * here, so both commands read and describe them the same way.
 */
import {
  type FlagTable,
  type FlagValues,
  integerFlag,
  numberFlag,
  UsageError,
} from '../command-line/flags.ts';
import type { ClockConfig } from './clock/sandbox-clock.ts';
import {
  describeTurbulence,
  FAULT_KINDS,
  parseFaultKinds,
  parseFaultRate,
  parseLatency,
  type TurbulenceConfig,
} from './turbulence.ts';
import { describeVariant, type Variant, variantOf } from './variants/variant.ts';

/** The shared flags, for a command's flag table (`...VARIANT_FLAGS`). */
export const VARIANT_FLAGS = {
  variant: {
    type: 'string',
    value: 'SEED',
    help: 'Serve other legal choices on every point the spec leaves open, drawn\nfrom SEED (1 to 4294967295); --variant list prints seeds 1 to 8',
  },
  'print-variant': { type: 'boolean', help: 'With --variant SEED: print what that variant chooses and exit' },
  latency: {
    type: 'string',
    value: 'MS|MIN-MAX',
    help: 'Add MS (or MIN to MAX, seeded) milliseconds before each API answer',
  },
  faults: {
    type: 'string',
    value: 'RATE',
    help: 'Fail this share (0 to 1) of API requests, seeded and replayable',
  },
  'fault-kinds': {
    type: 'string',
    value: 'LIST',
    help: `Which failures: ${FAULT_KINDS.join(',')} (default: all)`,
  },
  'fault-seed': { type: 'string', value: 'S', help: 'Seed of the latency and fault draws (default 1)' },
  clock: {
    type: 'boolean',
    help: 'Run the demo data through a seeded canvassing day; POST /sandbox/clock\n{"advance":"2h"} moves it, GET /sandbox/clock tells the time',
  },
  'clock-rate': {
    type: 'string',
    value: 'N',
    help: 'With --clock: the day also moves by itself, N times real time (e.g. 60)',
  },
} as const satisfies FlagTable;

/** The fastest a clock may run by itself: a day in under a second. */
const MAX_CLOCK_RATE = 100_000;

export interface VariantSettings {
  /** `--variant list`: print the choices of seeds 1..8 and exit. */
  listVariants: boolean;
  /** `--print-variant`: print the chosen variant and exit. */
  printVariant: boolean;
  variant: Variant | undefined;
  turbulence: TurbulenceConfig | undefined;
  /** `--clock` (and `--clock-rate N`): the canvassing day on a clock. */
  clock: ClockConfig | undefined;
}

type Values = FlagValues<typeof VARIANT_FLAGS>;

export function variantSettings(values: Values): VariantSettings {
  const listVariants = values.variant === 'list';
  const variant =
    values.variant === undefined || listVariants
      ? undefined
      : variantOf(seedFlag('--variant', values.variant));
  if (values['print-variant'] && !variant) throw new UsageError('--print-variant needs --variant SEED');
  if (values['fault-kinds'] !== undefined && values.faults === undefined) {
    throw new UsageError('--fault-kinds needs --faults RATE');
  }
  const latency = values.latency === undefined ? undefined : parseLatency(values.latency);
  const faults =
    values.faults === undefined
      ? undefined
      : {
          rate: parseFaultRate(values.faults),
          kinds:
            values['fault-kinds'] === undefined ? [...FAULT_KINDS] : parseFaultKinds(values['fault-kinds']),
        };
  const seed = values['fault-seed'] === undefined ? 1 : seedFlag('--fault-seed', values['fault-seed']);
  const on = latency !== undefined || faults !== undefined;
  if (values['clock-rate'] !== undefined && !values.clock) throw new UsageError('--clock-rate needs --clock');
  const rate = numberFlag(
    '--clock-rate',
    values['clock-rate'],
    { min: 0, max: MAX_CLOCK_RATE, above: true },
    0,
  );
  return {
    listVariants,
    printVariant: values['print-variant'] ?? false,
    variant,
    turbulence: on ? { seed, ...(latency ? { latency } : {}), ...(faults ? { faults } : {}) } : undefined,
    clock: values.clock ? { rate } : undefined,
  };
}

function seedFlag(name: string, raw: string): number {
  return integerFlag(name, raw, { min: 1, max: 2 ** 32 - 1 }, 1);
}

/** What `--variant list` prints: the choices of seeds 1..8. */
export function variantList(): string {
  const blocks = [];
  for (let seed = 1; seed <= 8; seed++) blocks.push(variantText(variantOf(seed)));
  return `${blocks.join('\n\n')}\n`;
}

/** One variant's choices, one open point a line. */
export function variantText(variant: Variant): string {
  return [`variant ${variant.seed}:`, ...describeVariant(variant).map((line) => `  ${line}`)].join('\n');
}

/** The banner line saying what is on. */
export function variantBanner(settings: Pick<VariantSettings, 'variant' | 'turbulence' | 'clock'>): string {
  const variant = settings.variant
    ? `variant ${settings.variant.seed} (see --variant ${settings.variant.seed} --print-variant)`
    : 'the project’s own choices on open points';
  return `${variant}; ${describeTurbulence(settings.turbulence)}${clockText(settings.clock)}`;
}

function clockText(clock: ClockConfig | undefined): string {
  if (!clock) return '';
  const moving = clock.rate ? `, moving by itself at ${clock.rate}x real time` : '';
  return `; a canvassing day on a clock (POST /sandbox/clock {"advance":"2h"} moves it${moving})`;
}
