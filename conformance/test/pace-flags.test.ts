/** Bad values of the pace, retry and timeout flags: exit 2 naming the flag, before anything is sent. */
import { describe, expect, it } from 'vitest';
import { parseCli } from '../cli/config.ts';
import { runCli } from './harness.ts';

const ENV = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'svc_sk_live_flagtest0000' };

describe('--rate-limit, --retries and --timeout', () => {
  it.each(['0', 'abc', '5/h', '-3', '-3/s', '0/min', '10', '2.5/s', '10001/s'])(
    '--rate-limit %s: exit 2 naming the flag',
    async (value) => {
      const run = await runCli(['--rate-limit', value], ENV);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^conformance: --rate-limit must be a rate from 1\/s/);
      expect(run.stdout).toBe('');
    },
  );

  it.each([
    ['20/s', { requests: 20, perMs: 1_000 }],
    ['600/min', { requests: 600, perMs: 60_000 }],
  ])('--rate-limit %s is read as a cap per window', (value, expected) => {
    expect(parseCli(['--rate-limit', value], ENV).config.rateLimit).toEqual(expected);
  });

  it.each([
    ['--timeout', '99'],
    ['--timeout', '600001'],
    ['--timeout', '-1'],
    ['--retries', '11'],
    ['--retries', 'x'],
  ])('%s %s out of range: exit 2 naming the flag and its range', async (flag, value) => {
    const run = await runCli([flag, value], ENV);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${flag} must be an integer from`);
  });

  it('--retries 0 and the default', () => {
    expect(parseCli(['--retries', '0'], ENV).config.retries).toBe(0);
    expect(parseCli([], ENV).config.retries).toBe(3);
  });
});
