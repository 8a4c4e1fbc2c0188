import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../facts.ts';

const run = promisify(execFile);
const bin = (name: string) => new URL(`../../node_modules/.bin/${name}`, import.meta.url).pathname;

async function exitOf(command: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: new URL('../..', import.meta.url).pathname });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe.each([
  ['live', LIVE_SPEC_PATH],
  ['planned', PLANNED_SPEC_PATH],
])('the %s spec lints clean', (_name, path) => {
  it("under Spectral's spectral:oas ruleset, hints included", async () => {
    const { code, output } = await exitOf(bin('spectral'), ['lint', '--fail-severity=hint', path]);
    expect(output).toContain('No results with a severity of');
    expect(code).toBe(0);
  });

  it("under Redocly's recommended ruleset plus the project rules, warnings included", async () => {
    const { code, output } = await exitOf(bin('redocly'), ['lint', '--max-problems=50', path]);
    expect(output).toMatch(/Your API description is valid/);
    expect(output).not.toMatch(/You have \d+ warnings?/);
    expect(code).toBe(0);
  });
});
