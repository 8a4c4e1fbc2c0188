/**
 * The workflow docs/qa.md offers QA to paste: under 15 lines, valid YAML, and it gives
 * conformance/action.yml every required input and no input the action lacks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../packages.ts';

const MARKER = '<!-- conformance-action-workflow -->';

function pastedWorkflow(): string {
  const readme = readFileSync(join(REPO_ROOT, 'docs', 'qa.md'), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(MARKER)));
  if (!readme.includes(MARKER) || !block?.[1])
    throw new Error(`docs/qa.md has no yaml block after ${MARKER}`);
  return block[1];
}

interface Workflow {
  jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
}

describe("docs/qa.md's conformance workflow", () => {
  it('is under 15 lines and uses the action with its required inputs and no unknown one', () => {
    const text = pastedWorkflow();
    expect(text.trimEnd().split('\n').length).toBeLessThan(15);
    const steps = Object.values((parse(text) as Workflow).jobs).flatMap((job) => job.steps);
    const step = steps.find((s) => s.uses?.includes('/conformance@'));
    const action = parse(readFileSync(join(REPO_ROOT, 'conformance', 'action.yml'), 'utf8')) as {
      inputs: Record<string, { required?: boolean }>;
    };
    const given = Object.keys(step?.with ?? {});
    expect(given.filter((name) => !(name in action.inputs))).toEqual([]);
    const required = Object.entries(action.inputs).filter(([, input]) => input.required);
    expect(required.map(([name]) => name).filter((name) => !given.includes(name))).toEqual([]);
  });
});
