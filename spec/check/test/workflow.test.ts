/** The example workflow runs spec:check on every pull request that touches spec/, and only there. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const workflowOf = (name: string) =>
  parse(
    readFileSync(fileURLToPath(new URL(`../../../.github/workflows/${name}`, import.meta.url)), 'utf8'),
  ) as {
    on: Record<string, { paths?: string[] } | null>;
    jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown>; run?: string }[] }>;
  };

describe('.github/workflows/spec-check.yml', () => {
  const workflow = workflowOf('spec-check.yml');
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

  it('runs on pull requests that touch any file of spec/', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.on.pull_request?.paths).toEqual(['spec/**']);
  });

  it('checks out the history the base ref needs and runs spec:check against the base branch', () => {
    expect(steps.find((step) => step.uses?.startsWith('actions/checkout'))?.with).toMatchObject({
      'fetch-depth': 0,
    });
    const run = steps.map((step) => step.run ?? '').find((text) => text.includes('spec:check'));
    expect(run).toContain('npm run --silent spec:check -- --base-ref "origin/$BASE_REF" --format markdown');
    expect(run).toContain('exit "$status"');
  });

  it('is the only spec gate: the conformance workflow no longer runs on pull requests', () => {
    expect(Object.keys(workflowOf('conformance.yml').on)).not.toContain('pull_request');
  });
});
