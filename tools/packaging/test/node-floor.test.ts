/**
 * The Node floor is true: the oldest Node the root `engines` admits is one every locked package
 * admits too, so `npm ci` on it warns of no engine (EBADENGINE), and the README and both packages
 * name the same floor. `.ci/run` checks that CI runs on the floor's own release line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../packages.ts';

interface Manifest {
  engines?: { node?: string };
}
interface Lock {
  packages: Record<string, Manifest & { version?: string }>;
}

const read = <T>(file: string) => JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as T;
const range = read<Manifest>('package.json').engines?.node ?? '';
const floor = semver.minVersion(range);

/** The locked packages whose `engines.node` refuses `version`: each an EBADENGINE of `npm ci` there. */
function refusing(lock: Lock, version: string): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.engines?.node)
    .filter(([, entry]) => !semver.satisfies(version, entry.engines?.node ?? '*'))
    .map(
      ([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version} (${entry.engines?.node})`,
    );
}

describe('the Node floor', () => {
  it('is a version the root engines names', () => {
    expect(floor, `engines.node ${JSON.stringify(range)}`).not.toBeNull();
  });

  it('is admitted by every package npm ci installs (no EBADENGINE on it)', () => {
    expect(refusing(read<Lock>('package-lock.json'), floor?.version ?? '')).toEqual([]);
  });

  it('would be refused by a package that needs a newer Node (the check can fail)', () => {
    const lock: Lock = {
      packages: { '': {}, 'node_modules/new': { version: '1.0.0', engines: { node: '>=22.18.0' } } },
    };
    expect(refusing(lock, floor?.version ?? '')).toEqual(['new@1.0.0 (>=22.18.0)']);
  });

  it('is admitted by both packages, and named in the README', () => {
    for (const workspace of ['conformance', 'sandbox']) {
      const engines = read<Manifest>(`${workspace}/package.json`).engines?.node ?? '';
      expect(semver.satisfies(floor?.version ?? '', engines), `${workspace}: ${engines}`).toBe(true);
    }
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).toContain(
      `Node ${floor?.major}.${floor?.minor}`,
    );
  });
});
