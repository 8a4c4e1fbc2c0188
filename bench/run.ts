/**
 * One benchmark run: the figures of issue 6, measured on this machine. Every server under load is
 * a child process (autocannon keeps this process's event loop to itself); the floors serve the
 * very bytes the reference server answered, checked byte for byte before they are measured. Load
 * runs send the `Accept-Encoding` of a usual HTTP client (gzip), and on the demo data set also
 * `identity`, so the same endpoints are measured compressed and not (`CODINGS`).
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile, execFileSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { DEFAULT_WALKS, demoCredentials } from '../fixtures/index.ts';
import { timeConformanceRun } from './conformance-run.ts';
import {
  type BenchReport,
  CODINGS,
  type Coding,
  type ConformanceFigures,
  type Endpoint,
  type GenerationFigures,
  growthOf,
  type LoadComparison,
  ratiosOf,
  type RevalidationFigures,
  type StartupFigures,
  verdictsOf,
} from './figures.ts';
import { compareLoad, type LoadTarget, median } from './load.ts';
import type { BenchOptions } from './options.ts';
import type { RouteFile } from './floors/served-bytes.ts';
import { ROOT, type ServerChild, spawnServer } from './processes.ts';

const run = promisify(execFile);
const LIST_PATH = '/api/v1/walks?limit=200';
const NODE_WITH_TSX = [process.execPath, '--import', 'tsx'] as const;
const REFERENCE_LAUNCHER = 'reference-server/launch.js';
const PRISM = join(ROOT, 'node_modules/.bin/prism');

interface DatasetPlan {
  name: string;
  walks: number;
  startupSamples: number;
  /** The `Accept-Encoding`s its load runs send. */
  codings: Coding[];
}

interface Served {
  path: string;
  /** The body as sent. */
  bytes: Buffer;
  etag: string | undefined;
  contentEncoding: string | undefined;
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The JSON line a child process printed last. */
async function childJson<T>(args: string[]): Promise<T> {
  const { stdout } = await run(args[0] as string, args.slice(1), { cwd: ROOT, maxBuffer: 1 << 20 });
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as T;
}

/** One GET, the body as it came over the wire (undici's `request` decodes nothing). */
async function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; served: Served }> {
  const response = await request(url, { headers });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const { pathname, search } = new URL(url);
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    status: response.statusCode,
    served: {
      path: pathname + search,
      bytes,
      etag: header('etag'),
      contentEncoding: header('content-encoding'),
    },
  };
}

/** A body as JSON text, whichever coding it came in. */
function decoded({ bytes, contentEncoding }: Served): string {
  if (contentEncoding === undefined) return bytes.toString('utf8');
  if (contentEncoding === 'gzip') return gunzipSync(bytes).toString('utf8');
  throw new Error(`the reference server answered with Content-Encoding: ${contentEncoding}`);
}

/** The two benchmarked answers of a running reference server: the list and its largest walk. */
async function benchmarkedAnswers(
  baseUrl: string,
  headers: Record<string, string>,
): Promise<Record<Endpoint, Served>> {
  const list = await get(baseUrl + LIST_PATH, headers);
  if (list.status !== 200) throw new Error(`the reference list answered ${list.status}`);
  const walks = (JSON.parse(decoded(list.served)) as { data: { id: string; count: number }[] }).data;
  const largest = walks.reduce((best, walk) => (walk.count > best.count ? walk : best));
  const detail = await get(`${baseUrl}/api/v1/walks/${largest.id}`, headers);
  if (detail.status !== 200) throw new Error(`the reference detail answered ${detail.status}`);
  return { list: list.served, detail: detail.served };
}

async function revalidation(
  baseUrl: string,
  headers: Record<string, string>,
  dataset: string,
  coding: Coding,
  answers: Record<Endpoint, Served>,
): Promise<RevalidationFigures[]> {
  const rows: RevalidationFigures[] = [];
  for (const endpoint of ['list', 'detail'] as const) {
    const { path, etag } = answers[endpoint];
    const again = await get(baseUrl + path, { ...headers, ...(etag ? { 'If-None-Match': etag } : {}) });
    rows.push({ dataset, endpoint, coding, etag, revalidatedStatus: again.status });
  }
  return rows;
}

/** Writes the answers where the floors read them. */
function writeServedBytes(dir: string, answers: Record<Endpoint, Served>): void {
  mkdirSync(dir, { recursive: true });
  const routes: RouteFile[] = (['list', 'detail'] as const).map((endpoint) => {
    const { path, bytes, contentEncoding } = answers[endpoint];
    writeFileSync(join(dir, `${endpoint}.body`), bytes);
    return { path, file: `${endpoint}.body`, contentEncoding };
  });
  writeFileSync(join(dir, 'routes.json'), JSON.stringify(routes));
}

/** Checks that a floor sends exactly what the reference server sent, bytes and coding. */
async function checkSameBytes(
  floor: ServerChild,
  answers: Record<Endpoint, Served>,
  headers: Record<string, string>,
): Promise<void> {
  for (const endpoint of ['list', 'detail'] as const) {
    const reference = answers[endpoint];
    const { status, served } = await get(floor.baseUrl + reference.path, headers);
    if (
      status !== 200 ||
      !served.bytes.equals(reference.bytes) ||
      served.contentEncoding !== reference.contentEncoding
    ) {
      throw new Error(`${floor.name} does not serve the reference ${endpoint} bytes (status ${status})`);
    }
  }
}

function startFloor(name: string, script: string, bytesDir: string): Promise<ServerChild> {
  return spawnServer({
    name,
    command: NODE_WITH_TSX[0],
    args: [...NODE_WITH_TSX.slice(1), script, '--port', '{port}', '--bytes', bytesDir],
    probePath: LIST_PATH,
  });
}

interface DatasetResult {
  load: LoadComparison[];
  revalidation: RevalidationFigures[];
  startup: StartupFigures;
  conformance: ConformanceFigures[];
  logLines: number;
}

async function benchDataset(
  plan: DatasetPlan,
  options: BenchOptions,
  prismStarted: () => Promise<ServerChild | undefined>,
  withConformance: boolean,
): Promise<DatasetResult> {
  const keys = demoCredentials();
  const auth = { Authorization: `Bearer ${keys.CONFORMANCE_API_KEY}` };
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  const logPath = join(work, 'reference.log');
  const logFd = openSync(logPath, 'w');
  const children: ServerChild[] = [];
  try {
    progress(`${plan.name}: starting the reference server (${plan.walks} walks)`);
    const startReference = () =>
      spawnServer({
        name: 'reference server',
        command: process.execPath,
        args: [REFERENCE_LAUNCHER, '--port', '{port}', '--walks', String(plan.walks)],
        stdout: logFd,
        probePath: '/api/v1/walks',
      });
    // Start-up samples first, alone on the machine; the last one stays up for the load runs.
    const childProcessSamplesMs: number[] = [];
    for (let sample = 1; sample < plan.startupSamples; sample++) {
      const trial = await startReference();
      childProcessSamplesMs.push(trial.startupMs);
      await trial.stop();
    }
    const reference = await startReference();
    children.push(reference);
    childProcessSamplesMs.push(reference.startupMs);
    const prism = await prismStarted();
    const rssAtStartMb = reference.rssMb();
    const load: LoadComparison[] = [];
    const revalidated: RevalidationFigures[] = [];
    for (const coding of plan.codings) {
      const sent = { 'Accept-Encoding': CODINGS[coding] };
      const keyed = { ...auth, ...sent };
      const answers = await benchmarkedAnswers(reference.baseUrl, keyed);
      revalidated.push(...(await revalidation(reference.baseUrl, keyed, plan.name, coding, answers)));
      const bytesDir = join(work, coding);
      writeServedBytes(bytesDir, answers);
      const floors = [
        await startFloor('Express floor', 'bench/floors/express-floor.ts', bytesDir),
        await startFloor('Node floor', 'bench/floors/node-floor.ts', bytesDir),
      ];
      children.push(...floors);
      const [expressFloor, nodeFloor] = floors as [ServerChild, ServerChild];
      for (const floor of floors) await checkSameBytes(floor, answers, sent);

      for (const endpoint of ['list', 'detail'] as const) {
        const { path, bytes, contentEncoding } = answers[endpoint];
        const targets: LoadTarget[] = [
          { name: 'reference', url: reference.baseUrl + path, headers: keyed },
          { name: 'expressFloor', url: expressFloor.baseUrl + path, headers: sent },
          { name: 'nodeFloor', url: nodeFloor.baseUrl + path, headers: sent },
        ];
        if (prism) targets.push({ name: 'prism', url: prism.baseUrl + path, headers: keyed });
        progress(
          `${plan.name}: load on ${path}, Accept-Encoding: ${CODINGS[coding]} ` +
            `(${targets.map((target) => target.name).join(', ')})`,
        );
        const figures: LoadComparison['figures'] = await compareLoad(targets, options);
        load.push({
          dataset: plan.name,
          walks: plan.walks,
          endpoint,
          path,
          coding,
          contentEncoding,
          bodyBytes: bytes.length,
          figures,
          ratios: ratiosOf(figures),
          ...(figures.nodeFloor && figures.prism
            ? { nodeFloorOverPrism: ratiosOf({ reference: figures.nodeFloor, prism: figures.prism }).prism }
            : {}),
        });
      }
      for (const floor of floors) {
        await floor.stop();
        children.splice(children.indexOf(floor), 1);
      }
    }
    const rssAfterLoadMb = reference.rssMb();
    const peakRssMb = reference.peakRssMb();

    const conformance: ConformanceFigures[] = [];
    if (withConformance) {
      for (const delayMs of [0, 100]) {
        progress(`${plan.name}: conformance run${delayMs ? ` with +${delayMs} ms per answer` : ''}`);
        conformance.push(await timeConformanceRun(reference.baseUrl, { ...keys }, delayMs));
      }
    }
    for (const child of children.splice(0)) await child.stop();

    progress(`${plan.name}: in-process start-up`);
    const inProcessSamplesMs: number[] = [];
    for (let sample = 0; sample < plan.startupSamples; sample++) {
      const inProcess = await childJson<{ startupMs: number }>([
        ...NODE_WITH_TSX,
        'bench/children/start-in-process.ts',
        String(plan.walks),
      ]);
      inProcessSamplesMs.push(inProcess.startupMs);
    }
    closeSync(logFd);
    const logLines = readFileSync(logPath, 'utf8').split('\n').filter(Boolean).length;
    return {
      load,
      revalidation: revalidated,
      startup: {
        dataset: plan.name,
        walks: plan.walks,
        childProcessMs: median(childProcessSamplesMs),
        childProcessSamplesMs,
        inProcessMs: median(inProcessSamplesMs),
        inProcessSamplesMs,
        rssAtStartMb,
        rssAfterLoadMb,
        peakRssMb,
      },
      conformance,
      logLines,
    };
  } finally {
    for (const child of children) await child.stop();
    try {
      closeSync(logFd);
    } catch {
      // already closed
    }
    rmSync(work, { recursive: true, force: true });
  }
}

/** The mock as issue 6 names it: `prism mock spec/openapi.yaml`, Prism's defaults, its log discarded. */
function startPrismMock(): Promise<ServerChild> {
  return spawnServer({
    name: 'Prism mock',
    command: PRISM,
    args: ['mock', 'spec/openapi.yaml', '--host', '127.0.0.1', '--port', '{port}'],
    probePath: '/api/v1/walks',
  });
}

async function fixtureFigures(sizes: number[]): Promise<GenerationFigures[]> {
  const rows: GenerationFigures[] = [];
  for (const walks of sizes) {
    progress(`fixtures: generating ${walks} walks`);
    rows.push(
      await childJson<GenerationFigures>([
        ...NODE_WITH_TSX,
        'bench/children/generate-fixtures.ts',
        String(walks),
      ]),
    );
  }
  return rows;
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const startedAt = new Date();
  const started = performance.now();
  const notes = [
    'Express floor: express() with its defaults, one app.get per path, res.send(bytes) (Express adds its weak ETag per answer)',
    'Node floor: node:http, writeHead + end(bytes); both floors serve the bytes the reference answered, checked byte for byte',
    `codings: every target is sent the same Accept-Encoding; "${CODINGS.gzip}" (what HTTP clients send by default) is judged, "${CODINGS.identity}" is measured on the demo data set for comparison`,
    'Prism mock: prism mock spec/openapi.yaml with its defaults (log discarded); it answers the spec’s small examples, not the data set',
    'ratios: the median of per-round ratios (each round runs every target back to back)',
  ];
  const report: Omit<BenchReport, 'targets' | 'wallS'> = {
    version: 1,
    startedAt: startedAt.toISOString(),
    mode: options.mode,
    machine: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      loadAverage: { start: loadavg()[0] ?? 0, end: 0 },
    },
    settings: {
      connections: options.connections,
      warmupS: options.warmupS,
      durationS: options.durationS,
      rounds: options.rounds,
      largeWalks: options.largeWalks,
      fixtureSizes: options.skip.has('fixtures') ? [] : options.fixtureSizes,
    },
    load: [],
    revalidation: [],
    startup: [],
    fixtures: { sizes: [], growth: [] },
    conformance: [],
    requestLogs: [],
    notes,
  };

  let prism: Promise<ServerChild> | undefined;
  // Prism starts once the first reference server is up, so it never competes with a start-up sample.
  const prismStarted = async () => {
    if (options.skip.has('prism')) return undefined;
    if (!prism) progress('starting the Prism mock');
    prism ??= startPrismMock();
    return prism;
  };
  try {
    // What `npm run reference-server` runs; its bundle is built before any start-up is timed.
    execFileSync(process.execPath, [REFERENCE_LAUNCHER, '--build-only'], { cwd: ROOT, stdio: 'inherit' });
    const plans: DatasetPlan[] = [
      {
        name: 'demo',
        walks: DEFAULT_WALKS,
        startupSamples: options.startupSamples,
        codings: ['gzip', 'identity'],
      },
    ];
    if (!options.skip.has('large'))
      plans.push({ name: 'large', walks: options.largeWalks, startupSamples: 1, codings: ['gzip'] });
    for (const plan of plans) {
      const result = await benchDataset(
        plan,
        options,
        prismStarted,
        plan.name === 'demo' && !options.skip.has('conformance'),
      );
      report.load.push(...result.load);
      report.revalidation.push(...result.revalidation);
      report.startup.push(result.startup);
      report.conformance.push(...result.conformance);
      report.requestLogs.push({
        dataset: plan.name,
        lines: result.logLines,
        measuredRequests: result.load.reduce(
          (total, row) => total + (row.figures.reference?.requests ?? 0),
          0,
        ),
      });
    }
    if (!options.skip.has('fixtures')) {
      report.fixtures.sizes = await fixtureFigures(options.fixtureSizes);
      report.fixtures.growth = growthOf(report.fixtures.sizes);
    }
  } finally {
    await (await prism?.catch(() => undefined))?.stop();
  }
  report.machine.loadAverage.end = loadavg()[0] ?? 0;
  const complete = { ...report, wallS: (performance.now() - started) / 1000 };
  return { ...complete, targets: verdictsOf(complete) };
}
