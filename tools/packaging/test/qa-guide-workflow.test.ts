/**
 * The workflow docs/qa.md offers QA to paste: under 15 lines, valid YAML, and it gives
 * conformance/action.yml every required input and no input the action lacks.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import semver from 'semver';
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
  jobs: Record<string, { steps: { uses?: string; with?: Record<string, string | number> }[] }>;
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

  it('sets up a Node the packed CLI supports before the action runs', () => {
    const steps = Object.values((parse(pastedWorkflow()) as Workflow).jobs).flatMap((job) => job.steps);
    const setup = steps.findIndex((s) => s.uses?.startsWith('actions/setup-node@'));
    const action = steps.findIndex((s) => s.uses?.includes('/conformance@'));
    expect(setup).toBeGreaterThanOrEqual(0);
    expect(setup).toBeLessThan(action);
    const version = semver.coerce(String(steps[setup]?.with?.['node-version'] ?? ''));
    const engines = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'conformance', 'package.json'), 'utf8')) as {
        engines: { node: string };
      }
    ).engines.node;
    expect(version && semver.satisfies(version, engines), `${String(version)} in ${engines}`).toBe(true);
  });
});

/** The commands docs/qa.md may show: what a QA engineer types, nothing a slip of the pen made up. */
const COMMANDS = new Set(['npm', 'npx', 'export', 'set', 'mkdir', 'cd', 'curl']);

describe("docs/qa.md's blocks run as pasted", () => {
  const guide = readFileSync(join(REPO_ROOT, 'docs', 'qa.md'), 'utf8');
  const blocks = (language: string) =>
    [...guide.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '');

  it('every sh block is bash that parses, each line a command QA runs or a comment', () => {
    expect(blocks('sh').length).toBeGreaterThan(4);
    for (const block of blocks('sh')) {
      const parsed = spawnSync('bash', ['-n'], { input: block, encoding: 'utf8' });
      expect(parsed.stderr, block).toBe('');
      const lines = block
        .replace(/\\\n/g, ' ')
        .split('\n')
        .map((line) => line.trim());
      for (const line of lines.filter((l) => l !== '' && !l.startsWith('#'))) {
        const command = line.replace(/^([A-Z_]+=\S*\s+)+/, '').split(/\s/)[0] ?? '';
        expect(COMMANDS, line).toContain(command);
      }
    }
  });

  it('every yaml block parses', () => {
    expect(blocks('yaml').length).toBeGreaterThan(1);
    for (const block of blocks('yaml')) expect(() => parse(block), block).not.toThrow();
  });
});
