/**
 * The pre-flight tries the primary key in both headers: a key refused in one header and
 * accepted in the other is the deployment's fault (exit 1, naming the header), not a setup mistake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.ts';
import type { MutationServer } from '../../tools/test-support/mutations.ts';
import { MUTATIONS, startMutationServer } from '../../tools/test-support/mutations.ts';

let target: MutationServer;

beforeAll(async () => {
  target = await startMutationServer();
});

afterAll(async () => {
  await target.close();
});

const variant = (name: string) => {
  const found = MUTATIONS.find((m) => m.name === name);
  if (!found) throw new Error(`no variant ${name}`);
  return found;
};

describe('the pre-flight and the two key headers', () => {
  it('judges a deployment that refuses Bearer but accepts x-api-key: exit 1, naming the header', async () => {
    const { CONFORMANCE_WEB_BASE_URL: _web, ...keys } = target.world.credentials;
    const run = await runCli(
      ['--base-url', target.urlOf(variant('bearer-ignored')), '--only', 'AUTH-00'],
      keys,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      'CONFORMANCE_API_KEY is refused in Authorization: Bearer (401) but accepted in x-api-key',
    );
    expect(run.stdout).toMatch(/AUTH-001/);
    expect(run.stderr).not.toContain('the key was rejected');
  });

  it('still stops (exit 2) when the key is refused in both headers', async () => {
    const { CONFORMANCE_WEB_BASE_URL: _web, ...keys } = target.world.credentials;
    const run = await runCli(['--base-url', target.urlOf('none'), '--only', 'AUTH-001'], {
      ...keys,
      CONFORMANCE_API_KEY: keys.CONFORMANCE_REVOKED_KEY,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('the key was rejected (401 unauthorized)');
  });
});
