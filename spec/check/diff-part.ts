/** Part 2: the breaking-change gate of the new spec against its version at the base ref. */
import { acknowledgementsBeside } from '../diff/acknowledgements.ts';
import { SpecDiffError } from '../diff/errors.ts';
import { gateSpecs } from '../diff/gate.ts';
import { loadSpecAtGitRef, loadSpecInput } from '../diff/input.ts';
import { formatText, gateLine } from '../diff/report.ts';
import type { PartResult } from './types.ts';

export async function diffPart(specPath: string, baseRef: string, accepted?: string): Promise<PartResult> {
  let dispose = () => {};
  try {
    const head = loadSpecInput(specPath);
    const base = loadSpecAtGitRef(baseRef, specPath);
    dispose = base.dispose;
    const gate = await gateSpecs(base, head, {
      acknowledgements: accepted ?? acknowledgementsBeside(specPath),
      acknowledgementsNamed: accepted !== undefined,
    });
    const pass = gate.gate === 'pass';
    const counts = `${gate.counts.breaking} breaking, ${gate.counts['non-breaking']} non-breaking, ${gate.counts.annotation} annotation-only`;
    return {
      name: 'diff',
      status: pass ? 'pass' : 'fail',
      summary: `${gateLine(gate)} (${counts} against ${baseRef})`,
      details:
        pass && gate.counts.breaking === 0 ? [] : formatText(gate).split('\n').slice(3).filter(Boolean),
      gate,
    };
  } catch (error) {
    if (!(error instanceof SpecDiffError)) throw error;
    return {
      name: 'diff',
      status: 'error',
      summary: error.message.split('\n')[0] ?? error.code,
      details: error.message.split('\n').slice(1),
    };
  } finally {
    dispose();
  }
}
