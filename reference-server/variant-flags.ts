/**
 * The flags the reference server and the sandbox share for what prepares a partner for a real
 * deployment: `--variant`, `--latency`, `--faults`, `--fault-kinds`, `--fault-seed`. Parsed once
 * here, so both commands read and describe them the same way.
 */
import {
  describeTurbulence,
  FAULT_KINDS,
  parseFaultKinds,
  parseFaultRate,
  parseLatency,
  type TurbulenceConfig,
} from './turbulence.ts';
import { describeVariant, type Variant, variantOf } from './variants/variant.ts';

export const VARIANT_FLAG_OPTIONS = {
  variant: { type: 'string' },
  'print-variant': { type: 'boolean' },
  latency: { type: 'string' },
  faults: { type: 'string' },
  'fault-kinds': { type: 'string' },
  'fault-seed': { type: 'string' },
} as const;

export const VARIANT_USAGE = `  --variant SEED         serve other legal choices on every point the spec leaves open, drawn
                         from SEED (1 to 4294967295); --variant list prints seeds 1 to 8
  --print-variant        with --variant SEED: print what that variant chooses and exit
  --latency MS|MIN-MAX   add MS (or MIN to MAX, seeded) milliseconds before each API answer
  --faults RATE          fail this share (0 to 1) of API requests, seeded and replayable
  --fault-kinds LIST     which failures: ${FAULT_KINDS.join(',')} (default: all)
  --fault-seed S         seed of the latency and fault draws (default 1)`;

export interface VariantSettings {
  /** `--variant list`: print the choices of seeds 1..8 and exit. */
  listVariants: boolean;
  /** `--print-variant`: print the chosen variant and exit. */
  printVariant: boolean;
  variant: Variant | undefined;
  turbulence: TurbulenceConfig | undefined;
}

type Values = { [K in keyof typeof VARIANT_FLAG_OPTIONS]?: K extends 'print-variant' ? boolean : string };

export function variantSettings(values: Values): VariantSettings {
  const listVariants = values.variant === 'list';
  const variant =
    values.variant === undefined || listVariants
      ? undefined
      : variantOf(seedFlag('--variant', values.variant));
  if (values['print-variant'] && !variant) throw new RangeError('--print-variant needs --variant SEED');
  if (values['fault-kinds'] !== undefined && values.faults === undefined) {
    throw new RangeError('--fault-kinds needs --faults RATE');
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
  return {
    listVariants,
    printVariant: values['print-variant'] ?? false,
    variant,
    turbulence: on ? { seed, ...(latency ? { latency } : {}), ...(faults ? { faults } : {}) } : undefined,
  };
}

function seedFlag(name: string, raw: string): number {
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= 2 ** 32 - 1))
    throw new RangeError(`${name} must be an integer from 1 to 4294967295`);
  return value;
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
export function variantBanner(settings: Pick<VariantSettings, 'variant' | 'turbulence'>): string {
  const variant = settings.variant
    ? `variant ${settings.variant.seed} (see --variant ${settings.variant.seed} --print-variant)`
    : 'the project’s own choices on open points';
  return `${variant}; ${describeTurbulence(settings.turbulence)}`;
}
