/** The spec-change gate: the classified diff of two specs, judged against the acknowledged breaks. */
import { applyAcknowledgements, loadAcknowledgements, todayUtc } from './acknowledgements.ts';
import { diffSpecs } from './diff.ts';
import type { Engine } from './engine.ts';
import type { SpecInput } from './input.ts';
import type { GateResult } from './types.ts';

export interface GateOptions {
  /** The acknowledgement file; none when undefined. A path that does not exist acknowledges nothing. */
  acknowledgements?: string;
  /** The file was named by the user: its absence is unusable input. */
  acknowledgementsNamed?: boolean;
  /** `YYYY-MM-DD`, UTC; today by default. */
  today?: string;
  /** Redocly's diff (`runEngine`) unless a test passes one that reuses its real runs. */
  engine?: Engine;
}

export async function gateSpecs(
  base: SpecInput,
  head: SpecInput,
  options: GateOptions = {},
): Promise<GateResult> {
  // Read first: a malformed file is unusable input, reported before the slower comparison.
  const entries = options.acknowledgements
    ? loadAcknowledgements(options.acknowledgements, { mustExist: options.acknowledgementsNamed === true })
    : [];
  const diff = await diffSpecs(base, head, options.engine);
  const file = options.acknowledgements;
  return applyAcknowledgements(diff, entries, {
    today: options.today ?? todayUtc(),
    ...(file ? { file } : {}),
  });
}
