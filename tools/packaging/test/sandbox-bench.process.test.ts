/**
 * `npm run sandbox:bench` says on stderr what it is doing while it measures, and prints the figures
 * alone on stdout. (Its image stage, which removes the images it built, runs where podman does:
 * `sandbox.image.test.ts` proves the removal.)
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('npm run sandbox:bench', () => {
  it('prints its progress on stderr and the figures as JSON on stdout', async () => {
    const ran = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'sandbox:bench', '--', '--no-image', '--rounds', '2'],
      { timeout: 300_000 },
    );
    expect(ran.stderr.trim().split('\n')).toEqual([
      'sandbox:bench: canvassing day 1 of 2, in 24 one-hour steps',
      'sandbox:bench: canvassing day 2 of 2, in 24 one-hour steps',
    ]);
    const figures = JSON.parse(ran.stdout) as Record<string, number>;
    expect(figures.rounds).toBe(2);
    expect(figures.day_in_24_steps_ms).toBeGreaterThan(0);
  });
});
