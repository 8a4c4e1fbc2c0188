/**
 * Servers under load run in child processes, never in the benchmark's own event loop. This module
 * spawns one on a free port, times it from spawn to its first HTTP answer, reads its memory from
 * /proc, and stops it (SIGTERM, then SIGKILL after a grace period).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort } from '../mock/prism.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TSX = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

export interface ServerChild {
  name: string;
  baseUrl: string;
  /** Milliseconds from `spawn` to the first HTTP answer (any status). */
  startupMs: number;
  /** Resident memory of the process that serves (the child, or the one child of a wrapper like tsx). */
  rssMb(): number | undefined;
  /** Peak resident memory of that process so far. */
  peakRssMb(): number | undefined;
  /** CPU time (user + system) the serving process has used so far, in milliseconds. */
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
    stop: () => stopChild(child, exited),
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

/** Clock ticks per second of /proc/<pid>/stat on Linux (USER_HZ, 100 on every common kernel). */
const USER_HZ = 100;

function procCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}
