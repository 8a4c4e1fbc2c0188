/**
 * A bounded soak of the reference server: rounds of autocannon load mixing list, detail and error
 * requests, each answer checked against the status its kind must get, and the server's memory
 * measured after a forced GC between rounds. It passes when no round has an error (an unexpected
 * status, a socket error or a timeout) and memory grows at most `maxMemoryGrowth` from the first
 * round to the last.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { execaNode } from 'execa';
import { type Dataset, demoCredentials, generateDataset } from '../../fixtures/index.ts';
import { LIMIT } from '../../spec/facts.ts';
import { type AutocannonRequest, autocannon } from './autocannon.ts';
import type { FromServer, ToServer } from './server.ts';

export interface SoakOptions {
  rounds: number;
  durationSeconds: number;
  connections: number;
  /** Unmeasured load before the first round, so caches and the JIT are warm when round 1 is measured. */
  warmupSeconds: number;
  /** Largest allowed growth of RSS and heap after GC, first round to last (0.15 is 15 %). */
  maxMemoryGrowth: number;
  /** Makes the server throttle each key (`--rate-limit N/min`): the soak then reports its 429s as errors. */
  rateLimit?: number;
}

export const DEFAULT_OPTIONS: SoakOptions = {
  rounds: 3,
  durationSeconds: 6,
  connections: 64,
  warmupSeconds: 2,
  maxMemoryGrowth: 0.15,
};

export const QUICK_OPTIONS: SoakOptions = {
  ...DEFAULT_OPTIONS,
  durationSeconds: 1,
  connections: 8,
  warmupSeconds: 1,
};

interface Memory {
  rssBytes: number;
  heapUsedBytes: number;
}

interface RoundFigures {
  round: number;
  requests: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  errors: { unexpectedStatus: number; socket: number; timeouts: number; total: number };
  /** Per request kind: how many were sent and the statuses that were not the expected one. */
  kinds: Record<string, { sent: number; expected: number; unexpected: Record<string, number> }>;
  /** After the round, after a forced GC. */
  memory: Memory;
}

export interface SoakReport {
  startedAt: string;
  node: string;
  options: SoakOptions;
  /** After the warm-up, before round 1. */
  baselineMemory: Memory;
  rounds: RoundFigures[];
  /** Last round against the first, as fractions (0.05 is +5 %). */
  memoryGrowth: { rss: number; heapUsed: number };
  failures: string[];
  verdict: 'pass' | 'fail';
}

/** The server process could not be started or stopped answering its parent. */
class SoakTargetError extends Error {
  override readonly name = 'SoakTargetError';
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_ENTRY = fileURLToPath(new URL('./server.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const MEASURE_TIMEOUT_MS = 30_000;

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const startedAt = new Date().toISOString();
  const target = await startTarget(options.rateLimit);
  try {
    const mix = requestMix(generateDataset());
    if (options.warmupSeconds > 0) await load(target.baseUrl, options, options.warmupSeconds, mix);
    const baselineMemory = await target.measure();
    const rounds: RoundFigures[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const figures = await load(target.baseUrl, options, options.durationSeconds, mix);
      rounds.push({ round, ...figures, memory: await target.measure() });
    }
    return verdictOf({ startedAt, node: process.version, options, baselineMemory, rounds });
  } finally {
    await target.stop();
  }
}

function verdictOf(report: Omit<SoakReport, 'memoryGrowth' | 'failures' | 'verdict'>): SoakReport {
  const first = report.rounds[0]?.memory;
  const last = report.rounds.at(-1)?.memory;
  const growth = (a = 0, b = 0) => (a > 0 ? (b - a) / a : 0);
  const memoryGrowth = {
    rss: growth(first?.rssBytes, last?.rssBytes),
    heapUsed: growth(first?.heapUsedBytes, last?.heapUsedBytes),
  };
  const failures: string[] = [];
  for (const round of report.rounds) {
    if (round.requests === 0) failures.push(`round ${round.round}: no request completed`);
    const { unexpectedStatus, socket, timeouts } = round.errors;
    if (round.errors.total > 0) {
      failures.push(
        `round ${round.round}: ${unexpectedStatus} unexpected statuses, ${socket} socket errors, ${timeouts} timeouts` +
          unexpectedSummary(round),
      );
    }
  }
  const limit = report.options.maxMemoryGrowth;
  for (const [name, value] of Object.entries(memoryGrowth)) {
    if (value > limit) {
      failures.push(
        `${name} grew ${percent(value)} from round 1 to round ${report.rounds.length} (limit ${percent(limit)})`,
      );
    }
  }
  return { ...report, memoryGrowth, failures, verdict: failures.length === 0 ? 'pass' : 'fail' };
}

function unexpectedSummary(round: RoundFigures): string {
  const parts = Object.entries(round.kinds)
    .filter(([, kind]) => Object.keys(kind.unexpected).length > 0)
    .map(([name, kind]) => `${name} expected ${kind.expected}, got ${JSON.stringify(kind.unexpected)}`);
  return parts.length > 0 ? ` (${parts.slice(0, 4).join('; ')})` : '';
}

export function percent(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)} %`;
}

/** One kind of request of the mix, with the status it must get from a correct server. */
interface Probe {
  kind: string;
  weight: number;
  expected: number;
  method?: string;
  path: () => string;
  headers: Record<string, string>;
  body?: string;
}

/** Lists, details and the error answers, weighted roughly like a partner's traffic plus mistakes. */
function requestMix(dataset: Dataset): Probe[] {
  const keys = demoCredentials({ seed: dataset.seed });
  const activeOf = (index: number) =>
    dataset.walks
      .filter((walk) => walk.campaignId === dataset.campaigns[index]?.id && walk.state === 'active')
      .map((walk) => walk.id);
  const primary = activeOf(0);
  const second = activeOf(1);
  const pick = (ids: string[]) => ids[Math.floor(Math.random() * ids.length)] ?? '';
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const key = bearer(keys.CONFORMANCE_API_KEY);
  const context = { keys, key, bearer, pick, primary, second };
  return [...successProbes(context), ...refusalProbes(context)];
}

interface MixContext {
  keys: ReturnType<typeof demoCredentials>;
  key: Record<string, string>;
  bearer: (key: string) => Record<string, string>;
  pick: (ids: string[]) => string;
  primary: string[];
  second: string[];
}

/** The answers a client polls for: lists, details, revalidation. */
function successProbes({ keys, key, bearer, pick, primary, second }: MixContext): Probe[] {
  return [
    { kind: 'list', weight: 3, expected: 200, path: () => '/api/v1/walks', headers: key },
    {
      kind: `list limit=${LIMIT.maximum}`,
      weight: 1,
      expected: 200,
      path: () => `/api/v1/walks?limit=${LIMIT.maximum}`,
      headers: { 'x-api-key': keys.CONFORMANCE_API_KEY },
    },
    {
      kind: 'list random limit',
      weight: 2,
      expected: 200,
      path: () => `/api/v1/walks?limit=${LIMIT.minimum + Math.floor(Math.random() * LIMIT.maximum)}`,
      headers: key,
    },
    { kind: 'detail', weight: 4, expected: 200, path: () => `/api/v1/walks/${pick(primary)}`, headers: key },
    {
      kind: 'detail, second campaign',
      weight: 1,
      expected: 200,
      path: () => `/api/v1/walks/${pick(second)}`,
      headers: bearer(keys.CONFORMANCE_OTHER_CAMPAIGN_KEY),
    },
    {
      kind: 'revalidation',
      weight: 1,
      expected: 304,
      path: () => '/api/v1/walks',
      headers: { ...key, 'if-none-match': '*' },
    },
  ];
}

/** The refusals a correct server gives, each with its expected status. */
function refusalProbes({ keys, key, bearer, pick, second }: MixContext): Probe[] {
  return [
    {
      kind: 'unknown walk',
      weight: 1,
      expected: 404,
      path: () => `/api/v1/walks/${crypto.randomUUID()}`,
      headers: key,
    },
    {
      kind: 'walk of another campaign',
      weight: 1,
      expected: 404,
      path: () => `/api/v1/walks/${pick(second)}`,
      headers: key,
    },
    { kind: 'no key', weight: 1, expected: 401, path: () => '/api/v1/walks', headers: {} },
    {
      kind: 'revoked key',
      weight: 1,
      expected: 401,
      path: () => '/api/v1/walks',
      headers: bearer(keys.CONFORMANCE_REVOKED_KEY),
    },
    {
      kind: 'missing scope',
      weight: 1,
      expected: 403,
      path: () => '/api/v1/walks',
      headers: bearer(keys.CONFORMANCE_NO_SCOPE_KEY),
    },
    { kind: 'bad limit', weight: 1, expected: 400, path: () => '/api/v1/walks?limit=1e3', headers: key },
    {
      kind: 'POST',
      weight: 1,
      expected: 405,
      method: 'POST',
      path: () => '/api/v1/walks',
      headers: { ...key, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    },
    { kind: 'unknown path', weight: 1, expected: 404, path: () => '/api/v2/walks', headers: key },
  ];
}

type Tally = RoundFigures['kinds'];

/** One autocannon run of the mix; every answer's status is checked against its kind's. */
async function load(
  baseUrl: string,
  options: SoakOptions,
  durationSeconds: number,
  mix: Probe[],
): Promise<Omit<RoundFigures, 'round' | 'memory'>> {
  const kinds: Tally = Object.fromEntries(
    mix.map((probe) => [probe.kind, { sent: 0, expected: probe.expected, unexpected: {} }]),
  );
  const weighted = mix.flatMap((probe) => Array.from({ length: probe.weight }, () => probe));
  const request: AutocannonRequest = {
    setupRequest: (defaults, context) => {
      const probe = weighted[Math.floor(Math.random() * weighted.length)] ?? mix[0];
      if (!probe) return defaults;
      context.kind = probe.kind;
      return {
        ...defaults,
        method: probe.method ?? 'GET',
        path: probe.path(),
        headers: probe.headers,
        body: probe.body ?? '',
      };
    },
    onResponse: (status, _body, context) => {
      const tally = kinds[String(context.kind)];
      if (!tally) return;
      tally.sent++;
      if (status !== tally.expected) tally.unexpected[status] = (tally.unexpected[status] ?? 0) + 1;
    },
  };
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: durationSeconds,
    timeout: 10,
    // Samples every 100 ms so that short rounds end on time (autocannon stops on a sample tick).
    sampleInt: 100,
    requests: [request],
  });
  const unexpectedStatus = Object.values(kinds).reduce(
    (sum, kind) => sum + Object.values(kind.unexpected).reduce((a, b) => a + b, 0),
    0,
  );
  const socket = result.errors - result.timeouts;
  return {
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.total / Math.max(result.duration, 0.001)),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    errors: { unexpectedStatus, socket, timeouts: result.timeouts, total: unexpectedStatus + result.errors },
    kinds,
  };
}

interface Target {
  baseUrl: string;
  measure(): Promise<Memory>;
  stop(): Promise<void>;
}

/** The server in its own process with `--expose-gc`, so its memory is its own and measurable. */
async function startTarget(rateLimit: number | undefined): Promise<Target> {
  const child = execaNode(SERVER_ENTRY, [], {
    cwd: ROOT,
    nodeOptions: ['--expose-gc', '--import', 'tsx'],
    env: { SOAK_RATE_LIMIT: rateLimit ? String(rateLimit) : '' },
    stdio: ['ignore', 'inherit', 'inherit'],
    ipc: true,
    serialization: 'json',
    reject: false,
    // Stopped with SIGTERM, killed if it has not exited 10 s later.
    forceKillAfterDelay: 10_000,
  });
  const stop = async () => {
    child.kill();
    await child;
  };
  try {
    const ready = await nextMessage(child, 'ready', START_TIMEOUT_MS);
    return {
      baseUrl: ready.baseUrl,
      measure: async () => {
        send(child, { type: 'measure' });
        const { rssBytes, heapUsedBytes } = await nextMessage(child, 'memory', MEASURE_TIMEOUT_MS);
        return { rssBytes, heapUsedBytes };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What the parent uses of the server process: its IPC channel and its exit. */
type ServerChild = Pick<ChildProcess, 'connected' | 'send' | 'on' | 'off' | 'once'>;

function send(child: ServerChild, message: ToServer): void {
  if (!child.connected) throw new SoakTargetError('the server process is gone');
  child.send(message);
}

function nextMessage<T extends FromServer['type']>(
  child: ServerChild,
  type: T,
  timeoutMs: number,
): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => settle(new SoakTargetError(`the server process sent no ${type} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: FromServer) => {
      if (message.type === type) settle(undefined, message as Extract<FromServer, { type: T }>);
      else if (message.type === 'failed')
        settle(new SoakTargetError(`the server could not start: ${message.message}`));
    };
    const onExit = (code: number | null) =>
      settle(new SoakTargetError(`the server process exited (${code}) before its ${type}`));
    function settle(error?: Error, message?: Extract<FromServer, { type: T }>) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else if (message) resolve(message);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
