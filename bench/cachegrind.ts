/**
 * Instructions a server executes per request, counted by Valgrind's Cachegrind through its public
 * command line (`valgrind --tool=cachegrind --cache-sim=no --vex-guest-chase=no`). CPU time per request swings 2-3 ×
 * on a shared VM that accounts no steal time; the instructions of the same request do not.
 *
 * Cachegrind (Valgrind 3.19, Debian's) writes one total when the process exits and cannot be read
 * or reset while it runs, so a count is taken at two points by two processes: one started, warmed
 * up and stopped, and one started, warmed up the same way, sent `requests` more and stopped. The
 * difference, divided by `requests`, is what those requests cost, start-up and warm-up cancelled.
 * Node runs with V8's `--single-threaded`: the optimising compiler then runs at a fixed point of
 * the request stream instead of whenever its background thread gets the CPU, which moved the same
 * count by up to 15 % between runs; the work counted is the same, moved onto the main thread.
 * Garbage collection is in the count: at least ~1,500 requests between the two points amortise it
 * (fewer moved the figure by several per cent).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { autocannon } from '../measure/autocannon.ts';
import { type ServerChild, spawnServer } from './processes.ts';

export const VALGRIND = 'valgrind';

/** How a server is started: a Node script and its arguments (`{port}` is replaced). */
export interface CountedServer {
  name: string;
  script: string;
  args: string[];
  probePath: string;
}

/** One kind of request whose cost is counted. */
export interface CountedRequest {
  name: string;
  path: string;
  headers: Record<string, string>;
}

export interface CountSettings {
  /** Requests of each kind sent before either count: the compiler's warm-up, the same in both. */
  warmupRequests: number;
  /** Requests between the two counts. */
  requests: number;
}

export interface InstructionCount {
  /** Instructions of the process started, warmed up and stopped. */
  baseline: number;
  /** Instructions of the process that also answered `requests` more. */
  loaded: number;
  requests: number;
  warmupRequests: number;
  perRequest: number;
}

/** The total of Cachegrind's output file: its `summary:` line (events `Ir`, with `--cache-sim=no`). */
export function instructionTotal(cachegrindOut: string): number {
  const events = /^events:\s*(.+)$/m.exec(cachegrindOut)?.[1]?.trim().split(/\s+/);
  const summary = /^summary:\s*(.+)$/m.exec(cachegrindOut)?.[1]?.trim().split(/\s+/);
  const at = events?.indexOf('Ir') ?? -1;
  const total = at >= 0 ? Number(summary?.[at]) : Number.NaN;
  if (!Number.isSafeInteger(total) || total <= 0) {
    throw new Error('no instruction total (Ir) in the Cachegrind output');
  }
  return total;
}

/** The instructions of the requests between the two counts, per request. */
export function perRequest(baseline: number, loaded: number, requests: number): number {
  if (requests <= 0) throw new Error('no requests between the two counts');
  return (loaded - baseline) / requests;
}

/** Whether `valgrind` runs here; the message says how to get it when it does not. */
export function valgrindMissing(): string | undefined {
  try {
    execFileSync(VALGRIND, ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'valgrind is needed to count instructions: apt-get install valgrind (or --skip instructions)';
  }
}

/** The server under Cachegrind, its total written to `outFile` when it stops. */
function spawnCounted(server: CountedServer, outFile: string): Promise<ServerChild> {
  return spawnServer({
    name: `${server.name} under Cachegrind`,
    command: VALGRIND,
    args: [
      '--tool=cachegrind',
      '--cache-sim=no',
      // How Valgrind translates code, not what it counts (the count of 1,500 requests moved by
      // under 0.6 %): it translates in smaller pieces, 17-28 % less CPU per count.
      '--vex-guest-chase=no',
      `--cachegrind-out-file=${outFile}`,
      process.execPath,
      '--single-threaded',
      server.script,
      ...server.args,
    ],
    probePath: server.probePath,
    startTimeoutMs: 600_000,
    // Stopping means writing the count: a process killed before it exits leaves none.
    stopGraceMs: 120_000,
  });
}

/**
 * Sends `amount` requests over one connection, one at a time: every request is its own turn of
 * the server's event loop, however fast the server and the load generator happen to run, so what
 * a request costs does not depend on the machine's load.
 */
export async function sendRequests(url: string, headers: Record<string, string>, amount: number) {
  const result = await autocannon({ url, headers, amount, connections: 1, duration: 3_600, timeout: 120 });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0 || result.requests.total < amount) {
    throw new Error(`${url}: ${failures} of ${amount} requests failed`);
  }
}

/** Starts the server under Cachegrind, sends the phases in order, stops it; its instruction total. */
async function countedRun(
  server: CountedServer,
  phases: { request: CountedRequest; amount: number }[],
  dir: string,
  run: string,
): Promise<number> {
  const outFile = join(dir, `${run}.cachegrind`);
  const child = await spawnCounted(server, outFile);
  try {
    for (const { request, amount } of phases) {
      if (amount > 0) await sendRequests(child.baseUrl + request.path, request.headers, amount);
    }
  } finally {
    await child.stop();
  }
  return instructionTotal(readFileSync(outFile, 'utf8'));
}

/**
 * Instructions per request of each kind of request a server answers: one baseline process (start,
 * warm-up of every kind, stop) and one process per kind (the same, then `requests` of that kind).
 */
export async function countInstructions(
  server: CountedServer,
  requests: readonly CountedRequest[],
  settings: CountSettings,
  progress: (message: string) => void = () => {},
): Promise<Record<string, InstructionCount>> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cachegrind-'));
  const warmup = requests.map((request) => ({ request, amount: settings.warmupRequests }));
  try {
    progress(`${server.name}: counting the instructions of start-up and warm-up`);
    const baseline = await countedRun(server, warmup, dir, 'baseline');
    const counts: Record<string, InstructionCount> = {};
    for (const [index, request] of requests.entries()) {
      progress(`${server.name}: counting ${settings.requests} requests to ${request.name}`);
      const loaded = await countedRun(
        server,
        [...warmup, { request, amount: settings.requests }],
        dir,
        `kind-${index}`,
      );
      counts[request.name] = {
        baseline,
        loaded,
        requests: settings.requests,
        warmupRequests: settings.warmupRequests,
        perRequest: perRequest(baseline, loaded, settings.requests),
      };
    }
    return counts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
