/**
 * The command as a process, once: `npm run conformance -- --list` through the launcher every npm
 * script uses. Every other case of the command line runs its `main` in-process (`cli.suite.test.ts`).
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

describe('npm run conformance as a process', () => {
  it('lists every rule: npm run conformance -- --list', async () => {
    const run = await execa(process.execPath, ['command-line/launch.js', 'conformance/main.ts', '--list'], {
      reject: false,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^ENVELOPE-001\trequired\t§4.1\t/m);
    expect(run.stdout).toMatch(/^DRIFT-003\tdrift\t/m);
  });
});
