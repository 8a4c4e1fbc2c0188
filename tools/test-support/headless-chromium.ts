/**
 * Headless Chromium as the browser tests drive it (the docs page and the conformance HTML report).
 * The browser comes from npm: `@sparticuz/chromium` ships a Chromium inside its package and inflates
 * it into the temporary folder on first use, so `npm ci` is all a fresh machine needs. Debian's
 * `/usr/bin/chromium` is the fallback when that one cannot start (another CPU architecture, say).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import packagedChromium from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Nothing the browser would fetch, update or report on its own while a test drives it. */
const QUIET_ARGS = ['--disable-background-networking', '--disable-component-update', '--disable-sync'];
const DEBIAN_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', ...QUIET_ARGS];

/** Which browser a test got, for its messages. */
export type ChromiumSource = 'npm' | 'debian';
const launched = new WeakMap<Browser, ChromiumSource>();

export function sourceOf(browser: Browser): ChromiumSource | undefined {
  return launched.get(browser);
}

export async function launchHeadlessChromium(): Promise<Browser> {
  let npmFailure: unknown;
  try {
    const executablePath = await inflatePackagedChromium();
    const args = [...packagedChromium.args, ...QUIET_ARGS];
    return remember(await chromium.launch({ executablePath, args }), 'npm');
  } catch (error) {
    npmFailure = error;
  }
  if (!existsSync(DEBIAN_CHROMIUM)) {
    throw new Error(
      `the npm Chromium (@sparticuz/chromium) did not start, and ${DEBIAN_CHROMIUM} is not installed`,
      { cause: npmFailure },
    );
  }
  return remember(await chromium.launch({ executablePath: DEBIAN_CHROMIUM, args: DEBIAN_ARGS }), 'debian');
}

function remember(browser: Browser, source: ChromiumSource): Browser {
  launched.set(browser, source);
  return browser;
}

/*
 * The package inflates its files into the temporary folder and takes an existing `chromium` there
 * as done. Two test files start browsers in parallel workers, so one could launch a file the other
 * is still writing: inflating happens under a lock folder, and a marker written afterwards says the
 * files are whole and which version of the package wrote them. A lock older than LOCK_STALE_MS
 * belongs to a worker that died and is taken over.
 */
const PACKAGE_VERSION = packageVersion('@sparticuz/chromium');

/** The version in the nearest `package.json` above a package's entry that bears its name. */
function packageVersion(name: string): string {
  for (
    let dir = dirname(createRequire(import.meta.url).resolve(name));
    dir !== dirname(dir);
    dir = dirname(dir)
  ) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name: found, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version: string;
    };
    if (found === name) return version;
  }
  throw new Error(`no package.json of ${name} above its entry`);
}
const INFLATED_MARKER = join(tmpdir(), '.sparticuz-chromium-inflated');
const LOCK = join(tmpdir(), '.sparticuz-chromium-inflating');
const LOCK_STALE_MS = 120_000;
const LOCK_POLL_MS = 100;
const LOCK_ATTEMPTS = 1_800;

async function inflatePackagedChromium(): Promise<string> {
  const binary = join(tmpdir(), 'chromium');
  if (isInflated(binary)) return binary;
  await withLock(async () => {
    if (isInflated(binary)) return;
    // A binary without the marker was left by a worker that died mid-way, or by another version.
    rmSync(binary, { force: true });
    await packagedChromium.executablePath();
    writeFileSync(INFLATED_MARKER, PACKAGE_VERSION);
  });
  return binary;
}

function isInflated(binary: string): boolean {
  return (
    existsSync(binary) &&
    existsSync(INFLATED_MARKER) &&
    readFileSync(INFLATED_MARKER, 'utf8') === PACKAGE_VERSION
  );
}

async function withLock(work: () => Promise<void>): Promise<void> {
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (takeLock()) {
      try {
        await work();
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
  throw new Error(`${LOCK} was held for too long; remove it if no test is running`);
}

function takeLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    if (Date.now() - lockTakenAt() > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

/** When the lock was taken (now, when it has just gone). */
function lockTakenAt(): number {
  try {
    return statSync(LOCK).mtimeMs;
  } catch {
    return Date.now();
  }
}
