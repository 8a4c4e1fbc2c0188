/**
 * Servers under load run in child processes, never in the benchmark's own event loop. This module
 * spawns one on a free port, times it from spawn to its first HTTP answer, reads its memory from
 * /proc, and stops it (SIGTERM, then SIGKILL after a grace period).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort } from '../command-line/free-port.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServerChild {
  name: string;
  baseUrl: string;
  /** Milliseconds from `spawn` to the first HTTP answer (any status). */
  startupMs: number;
  /** Resident memory of the process that serves (the child, or the one child of a wrapper like tsx). */
  rssMb(): number | undefined;
  /** Peak resident memory of that process so far. */
  peakRssMb(): number | undefined;
  /** CPU time the serving process's threads have run so far, in milliseconds (ns resolution). */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

export interface SpawnServerOptions {
  name: string;
  command: string;
  /** `{port}` in an argument is replaced by the chosen port. */
  args: string[];
  /** Where the child's stdout goes: a file descriptor, or 'ignore'. */
  stdout?: number | 'ignore';
  /** The path polled until it answers. */
  probePath?: string;
  startTimeoutMs?: number;
  /** How long the child may take to exit on SIGTERM before it is killed (default 5 s). */
  stopGraceMs?: number;
}

const POLL_INTERVAL_MS = 10;

export async function spawnServer(options: SpawnServerOptions): Promise<ServerChild> {
  const port = await freePort('127.0.0.1');
  const args = options.args.map((arg) => arg.replaceAll('{port}', String(port)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(options.command, args, {
    cwd: ROOT,
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  try {
    await untilAnswering(baseUrl + (options.probePath ?? '/'), child, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stopChild(child, exited);
    throw new Error(`${options.name} did not start: ${(error as Error).message}\n${stderr}`, {
      cause: error,
    });
  }
  const startupMs = performance.now() - started;
  const servingPid = () => servingProcessOf(child.pid);
  return {
    name: options.name,
    baseUrl,
    startupMs,
    rssMb: () => procStatusMb(servingPid(), 'VmRSS'),
    peakRssMb: () => procStatusMb(servingPid(), 'VmHWM'),
    cpuMs: () => procCpuMs(servingPid()),
    stop: () => stopChild(child, exited, options.stopGraceMs),
  };
}

/** One GET; resolves with the status, or rejects when nothing answers. */
export function probe(url: string, timeoutMs = 1_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy(new Error('probe timed out')));
    req.once('error', reject);
    req.end();
  });
}

async function untilAnswering(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before answering`);
    }
    try {
      await probe(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  }
  throw new Error(`no answer within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * The process that actually serves: a wrapper such as the `tsx` CLI re-spawns node with its loader
 * and relays signals, so its only child is the server; a plain node child serves itself. Linux
 * exposes children in /proc; elsewhere, the pid itself.
 */
function servingProcessOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    const [only] = children;
    return children.length === 1 && only ? Number(only) : pid;
  } catch {
    return pid;
  }
}

function procStatusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time of every thread of the process (the main thread, V8's compiler and GC helpers, libuv's
 * pool), summed in nanoseconds from /proc/<pid>/task/<tid>/schedstat: /proc/<pid>/stat counts in
 * 10 ms ticks, too coarse for a round of a second or two at 60-150 µs a request.
 */
function procCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let nanoseconds = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanoseconds += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended between listing and reading
      }
    }
    return Number.isFinite(nanoseconds) ? nanoseconds / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
