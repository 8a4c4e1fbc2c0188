/**
 * One benchmark run: the figures of issue 6, measured on this machine. Every server under load is
 * a child process (autocannon keeps this process's event loop to itself); the floors serve the
 * very bytes the reference server answered, checked byte for byte before they are measured.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFile, execFileSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_WALKS, demoCredentials } from '../fixtures/index.ts';
import { timeConformanceRun } from './conformance-run.ts';
import {
  type BenchReport,
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
}

interface Served {
  path: string;
  bytes: Buffer;
  etag: string | undefined;
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The JSON line a child process printed last. */
async function childJson<T>(args: string[]): Promise<T> {
  const { stdout } = await run(args[0] as string, args.slice(1), { cwd: ROOT, maxBuffer: 1 << 20 });
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as T;
}

async function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; served: Served }> {
  const response = await fetch(url, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  const path = new URL(url).pathname + new URL(url).search;
  return {
    status: response.status,
    served: { path, bytes, etag: response.headers.get('etag') ?? undefined },
  };
}

/** The two benchmarked answers of a running reference server: the list and its largest walk. */
async function benchmarkedAnswers(
  baseUrl: string,
  auth: Record<string, string>,
): Promise<Record<Endpoint, Served>> {
  const list = await get(baseUrl + LIST_PATH, auth);
  if (list.status !== 200) throw new Error(`the reference list answered ${list.status}`);
  const walks = (JSON.parse(list.served.bytes.toString('utf8')) as { data: { id: string; count: number }[] })
    .data;
  const largest = walks.reduce((best, walk) => (walk.count > best.count ? walk : best));
  const detail = await get(`${baseUrl}/api/v1/walks/${largest.id}`, auth);
  if (detail.status !== 200) throw new Error(`the reference detail answered ${detail.status}`);
  return { list: list.served, detail: detail.served };
}

async function revalidation(
  baseUrl: string,
  auth: Record<string, string>,
  dataset: string,
  answers: Record<Endpoint, Served>,
): Promise<RevalidationFigures[]> {
  const rows: RevalidationFigures[] = [];
  for (const endpoint of ['list', 'detail'] as const) {
    const { path, etag } = answers[endpoint];
    const again = await get(baseUrl + path, { ...auth, ...(etag ? { 'If-None-Match': etag } : {}) });
    rows.push({ dataset, endpoint, etag, revalidatedStatus: again.status });
  }
  return rows;
}

/** Writes the answers where the floors read them, and checks each floor serves them byte for byte. */
function writeServedBytes(dir: string, answers: Record<Endpoint, Served>): void {
  const routes = (['list', 'detail'] as const).map((endpoint) => {
    writeFileSync(join(dir, `${endpoint}.json`), answers[endpoint].bytes);
    return { path: answers[endpoint].path, file: `${endpoint}.json` };
  });
  writeFileSync(join(dir, 'routes.json'), JSON.stringify(routes));
}

async function checkSameBytes(floor: ServerChild, answers: Record<Endpoint, Served>): Promise<void> {
  for (const endpoint of ['list', 'detail'] as const) {
    const { status, served } = await get(floor.baseUrl + answers[endpoint].path, {});
    if (status !== 200 || !served.bytes.equals(answers[endpoint].bytes)) {
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
    // What `npm run reference-server` runs; its bundle is built before any start-up is timed.
    execFileSync(process.execPath, [REFERENCE_LAUNCHER, '--build-only'], { cwd: ROOT, stdio: 'inherit' });
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
    const answers = await benchmarkedAnswers(reference.baseUrl, auth);
    const revalidated = await revalidation(reference.baseUrl, auth, plan.name, answers);
    writeServedBytes(work, answers);
    const expressFloor = await startFloor('Express floor', 'bench/floors/express-floor.ts', work);
    children.push(expressFloor);
    const nodeFloor = await startFloor('Node floor', 'bench/floors/node-floor.ts', work);
    children.push(nodeFloor);
    await checkSameBytes(expressFloor, answers);
    await checkSameBytes(nodeFloor, answers);

    const load: LoadComparison[] = [];
    for (const endpoint of ['list', 'detail'] as const) {
      const path = answers[endpoint].path;
      const targets: LoadTarget[] = [
        { name: 'reference', url: reference.baseUrl + path, headers: auth },
        { name: 'expressFloor', url: expressFloor.baseUrl + path },
        { name: 'nodeFloor', url: nodeFloor.baseUrl + path },
      ];
      if (prism) targets.push({ name: 'prism', url: prism.baseUrl + path, headers: auth });
      progress(`${plan.name}: load on ${path} (${targets.map((target) => target.name).join(', ')})`);
      const figures: LoadComparison['figures'] = await compareLoad(targets, options);
      load.push({
        dataset: plan.name,
        walks: plan.walks,
        endpoint,
        path,
        bodyBytes: answers[endpoint].bytes.length,
        figures,
        ratios: ratiosOf(figures),
        ...(figures.nodeFloor && figures.prism
          ? { nodeFloorOverPrism: ratiosOf({ reference: figures.nodeFloor, prism: figures.prism }).prism }
          : {}),
      });
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
    const plans: DatasetPlan[] = [
      { name: 'demo', walks: DEFAULT_WALKS, startupSamples: options.startupSamples },
    ];
    if (!options.skip.has('large'))
      plans.push({ name: 'large', walks: options.largeWalks, startupSamples: 1 });
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
