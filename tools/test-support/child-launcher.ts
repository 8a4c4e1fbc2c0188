/**
 * Test support for the launchers (`npm run mock`, `npm start`): runs one as a child process in its
 * own process group, collects its output, and tells whether a port or a process group is gone.
 */
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { KEY_PREFIX } from '../../spec/facts.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Launched {
  child: { kill(signal?: NodeJS.Signals): boolean };
  /** The process group id (the child is its leader). */
  pgid: number;
  output(): string;
  exited: Promise<number | NodeJS.Signals>;
  /** Resolves once the output contains `text`; rejects when the child exits first or after `timeoutMs`. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
}

/** Output as a failure message may show it: API keys masked (the sandbox prints the demo keys). */
export function redacted(text: string): string {
  return text.replace(new RegExp(`${KEY_PREFIX}[^\\s'"]*`, 'g'), `${KEY_PREFIX}[redacted]`);
}

/**
 * Runs `<script> ...args` as the npm scripts do (`node command-line/launch.js <script> ...args`)
 * from the repository root, detached into its own group.
 */
export function launch(script: string, args: string[]): Launched {
  return launchCommand(process.execPath, ['command-line/launch.js', script, ...args]);
}

/** Runs `npm <args>` from the repository root, detached into its own group (npm leads it). */
export function launchNpm(args: string[]): Launched {
  return launchCommand('npm', args);
}

/** Runs any program from the repository root, detached into its own group (the program leads it). */
export function launchCommand(command: string, args: string[]): Launched {
  const child = execa(command, args, {
    cwd: REPO_ROOT,
    detached: true,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    env: { FORCE_COLOR: '0' },
  });
  let text = '';
  const waiters = new Set<() => void>();
  child.all.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters) wake();
  });
  const exited = child.then((ended) => ended.signal ?? ended.exitCode ?? 0);
  if (child.pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`);
  const pgid = child.pid;

  const waitForOutput = (wanted: string, timeoutMs = 45_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!text.includes(wanted)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no "${wanted}" within ${timeoutMs} ms; output:\n${redacted(text)}`));
      }, timeoutMs);
      const onExit = () => {
        done();
        reject(new Error(`exited before printing "${wanted}"; output:\n${redacted(text)}`));
      };
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
        child.off('exit', onExit);
      };
      waiters.add(check);
      child.once('exit', onExit);
      check();
    });

  return { child, pgid, output: () => text, exited, waitForOutput };
}

/** Whether any process of the group is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until the group is gone; bounded. Returns whether it is gone. */
export async function waitForGroupGone(pgid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 200 && Date.now() < deadline; attempt++) {
    if (!groupAlive(pgid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !groupAlive(pgid);
}

/** Kills whatever is left of the group (cleanup after a failed test; never the test runner's own group). */
export function killGroup(pgid: number): void {
  if (pgid !== process.pid && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
}
