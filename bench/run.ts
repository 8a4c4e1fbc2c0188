/**
 * One benchmark run on this machine. Every server under load is a child process; the floors serve
 * the very bytes the reference server answered, checked byte for byte before they are measured.
 * On the demo data set each is judged by the instructions it executes per request, counted by
 * Cachegrind (`cachegrind.ts`); every server's CPU time per request is measured and reported beside
 * them. Load runs send the `Accept-Encoding` of a usual HTTP client (gzip), and on the demo data set
 * also `identity` (`CODINGS`).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { execFile, execFileSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
  instructionRatiosOf,
  ratiosOf,
  type RevalidationFigures,
  type StartupFigures,
  type TargetName,
  verdictsOf,
} from './figures.ts';
import { median } from '../measure/statistics.ts';
import { bundleFloors, type Floor } from './floor-bundles.ts';
import { countDataset, type CountedRows, rowKey } from './instruction-run.ts';
import { compareLoad, type LoadTarget } from './load.ts';
import type { BenchOptions } from './options.ts';
import { ROOT, type ServerChild, spawnServer } from './processes.ts';
import {
  benchmarkedAnswers,
  checkSameBytes,
  LIST_PATH,
  revalidation,
  routesOf,
  type Served,
  writeServedBytes,
} from './served.ts';

const run = promisify(execFile);
const NODE_WITH_TSX = [process.execPath, '--import', 'tsx'] as const;
const REFERENCE_LAUNCHER = 'reference-server/launch.js';
const PRISM = join(ROOT, 'node_modules/.bin/prism');

interface DatasetPlan {
  name: string;
  walks: number;
  startupSamples: number;
  /** The `Accept-Encoding`s its load runs send. */
  codings: Coding[];
  /** Whether the Node floor holding the data set (`--hold-walks`) is measured too. */
  heldFloor: boolean;
  /** The codings whose instructions per request are counted (none: CPU time only). */
  counted: Coding[];
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The JSON line a child process printed last. */
async function childJson<T>(args: string[]): Promise<T> {
  const { stdout } = await run(args[0] as string, args.slice(1), { cwd: ROOT, maxBuffer: 1 << 20 });
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as T;
}

function startFloor(
  name: string,
  bundle: string,
  bytesDir: string,
  extra: string[] = [],
): Promise<ServerChild> {
  return spawnServer({
    name,
    command: process.execPath,
    args: [bundle, '--port', '{port}', '--bytes', bytesDir, ...extra],
    probePath: LIST_PATH,
  });
}

/** The floors of one coding: Express, Node, and on a large data set the Node floor holding it. */
async function startFloors(
  plan: DatasetPlan,
  bundles: Record<Floor, string>,
  bytesDir: string,
): Promise<[TargetName, ServerChild][]> {
  const floors: [TargetName, ServerChild][] = [
    ['expressFloor', await startFloor('Express floor', bundles.expressFloor, bytesDir)],
    ['nodeFloor', await startFloor('Node floor', bundles.nodeFloor, bytesDir)],
  ];
  if (plan.heldFloor) {
    const hold = ['--hold-walks', String(plan.walks)];
    const name = 'Node floor holding the data set';
    floors.push(['heldNodeFloor', await startFloor(name, bundles.heldNodeFloor, bytesDir, hold)]);
  }
  return floors;
}

interface DatasetResult {
  load: LoadComparison[];
  revalidation: RevalidationFigures[];
  startup: StartupFigures;
  conformance: ConformanceFigures[];
  logLines: number;
}

/** What one data set's measurements share: its work directory, key and running servers. */
interface DatasetRun {
  plan: DatasetPlan;
  options: BenchOptions;
  work: string;
  auth: Record<string, string>;
  reference: ServerChild;
  prism: ServerChild | undefined;
  bundles: Record<Floor, string>;
  /** Children to stop if the run fails half way. */
  children: ServerChild[];
}

async function benchDataset(
  plan: DatasetPlan,
  options: BenchOptions,
  bundles: Record<Floor, string>,
  prismStarted: () => Promise<ServerChild | undefined>,
  withConformance: boolean,
): Promise<DatasetResult> {
  const keys = demoCredentials();
  const work = mkdtempSync(join(tmpdir(), 'bench-'));
  const logPath = join(work, 'reference.log');
  const logFd = openSync(logPath, 'w');
  const children: ServerChild[] = [];
  try {
    progress(`${plan.name}: starting the reference server (${plan.walks} walks)`);
    const { reference, samplesMs } = await startupSamples(plan, logFd);
    children.push(reference);
    const prism = await prismStarted();
    const auth = { Authorization: `Bearer ${keys.CONFORMANCE_API_KEY}` };
    await settle(reference, auth, options);
    const runState: DatasetRun = { plan, options, work, auth, reference, prism, bundles, children };
    const rssAtStartMb = reference.rssMb();
    const load: LoadComparison[] = [];
    const revalidated: RevalidationFigures[] = [];
    const answers: Partial<Record<Coding, Record<Endpoint, Served>>> = {};
    for (const coding of plan.codings) {
      const measured = await measureCoding(runState, coding);
      load.push(...measured.load);
      revalidated.push(...measured.revalidation);
      if (plan.counted.includes(coding)) answers[coding] = measured.answers;
    }
    const memory = { rssAtStartMb, rssAfterLoadMb: reference.rssMb(), peakRssMb: reference.peakRssMb() };
    const conformance = withConformance ? await conformanceRuns(plan, reference, keys) : [];
    for (const child of children.splice(0)) await child.stop();
    // Alone on the machine's cores once every other server is stopped, though a count does not
    // depend on them.
    if (plan.counted.length > 0) addCounts(load, await countInstructionsOf(runState, answers));
    const inProcessSamplesMs = await inProcessStartups(plan);
    closeSync(logFd);
    return {
      load,
      revalidation: revalidated,
      startup: {
        dataset: plan.name,
        walks: plan.walks,
        childProcessMs: median(samplesMs),
        childProcessSamplesMs: samplesMs,
        inProcessMs: median(inProcessSamplesMs),
        inProcessSamplesMs,
        ...memory,
      },
      conformance,
      logLines: readFileSync(logPath, 'utf8').split('\n').filter(Boolean).length,
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

/**
 * Start-up samples first, alone on the machine; the last one stays up for the load runs. Each
 * writes its request log to `logFd`, as `npm run reference-server` writes it to stdout.
 */
async function startupSamples(
  plan: DatasetPlan,
  logFd: number,
): Promise<{ reference: ServerChild; samplesMs: number[] }> {
  const startReference = () =>
    spawnServer({
      name: 'reference server',
      command: process.execPath,
      args: [REFERENCE_LAUNCHER, '--port', '{port}', '--walks', String(plan.walks)],
      stdout: logFd,
      probePath: '/api/v1/walks',
    });
  const samplesMs: number[] = [];
  for (let sample = 1; sample < plan.startupSamples; sample++) {
    const trial = await startReference();
    samplesMs.push(trial.startupMs);
    await trial.stop();
  }
  const reference = await startReference();
  samplesMs.push(reference.startupMs);
  return { reference, samplesMs };
}

/**
 * A server that just generated its data set still holds the garbage of doing so: collecting it
 * would land on the first measured rounds. A few seconds of unpaced load on both codings first.
 */
async function settle(reference: ServerChild, auth: Record<string, string>, options: BenchOptions) {
  const url = reference.baseUrl + LIST_PATH;
  for (const coding of ['gzip', 'identity'] as const) {
    const headers = { ...auth, 'Accept-Encoding': CODINGS[coding] };
    const target = { name: 'settle', url, headers, cpuMs: () => reference.cpuMs() };
    await compareLoad([target], { ...options, warmupS: options.warmupS * 2, rounds: 0 });
  }
}

/** Both endpoints under one `Accept-Encoding`: the reference server, both floors and Prism. */
async function measureCoding(
  state: DatasetRun,
  coding: Coding,
): Promise<{
  load: LoadComparison[];
  revalidation: RevalidationFigures[];
  answers: Record<Endpoint, Served>;
}> {
  const { plan, reference, prism, children } = state;
  const sent = { 'Accept-Encoding': CODINGS[coding] };
  const keyed = { ...state.auth, ...sent };
  const answers = await benchmarkedAnswers(reference.baseUrl, keyed);
  const revalidated = await revalidation(reference.baseUrl, keyed, plan.name, coding, answers);
  const bytesDir = join(state.work, coding);
  writeServedBytes(bytesDir, routesOf(answers));
  const started = await startFloors(plan, state.bundles, bytesDir);
  const floors = started.map(([, floor]) => floor);
  children.push(...floors);
  for (const [name, floor] of started) await checkSameBytes(floor, answers, sent, name !== 'expressFloor');
  const load: LoadComparison[] = [];
  for (const endpoint of ['list', 'detail'] as const) {
    const { path, bytes, contentEncoding } = answers[endpoint];
    const target = (name: string, server: ServerChild, headers: Record<string, string>): LoadTarget => ({
      name,
      url: server.baseUrl + path,
      headers,
      cpuMs: () => server.cpuMs(),
    });
    // The servers judged against each other share rounds. Prism, measured and not judged, runs its
    // own rounds afterwards: it spends ten times their CPU and goes on collecting garbage after
    // its round, which in the shared rotation fell on whichever judged target came next.
    const judged = [
      target('reference', reference, keyed),
      ...started.map(([name, floor]) => target(name, floor, sent)),
    ];
    progress(`${plan.name}: load on ${path}, Accept-Encoding: ${CODINGS[coding]}`);
    const figures: LoadComparison['figures'] = {
      ...(await compareLoad(judged, state.options)),
      ...(prism ? await compareLoad([target('prism', prism, keyed)], state.options) : {}),
    };
    const { walks, name: dataset } = plan;
    const bodyBytes = bytes.length;
    load.push({
      dataset,
      walks,
      endpoint,
      path,
      coding,
      contentEncoding,
      bodyBytes,
      figures,
      ratios: ratiosOf(figures),
    });
  }
  for (const floor of floors) {
    await floor.stop();
    children.splice(children.indexOf(floor), 1);
  }
  return { load, revalidation: revalidated, answers };
}

function countInstructionsOf(
  state: DatasetRun,
  answers: Partial<Record<Coding, Record<Endpoint, Served>>>,
): Promise<CountedRows> {
  const { plan, options } = state;
  return countDataset({
    walks: plan.walks,
    answers,
    auth: state.auth,
    work: state.work,
    bundles: state.bundles,
    referenceLauncher: REFERENCE_LAUNCHER,
    settings: { warmupRequests: options.countWarmup, requests: options.countRequests },
    progress: (message) => progress(`${plan.name}: ${message}`),
  });
}

/** Each row's counts and the ratios judged on them. */
function addCounts(load: LoadComparison[], rows: CountedRows): void {
  for (const row of load) {
    const counts = rows[rowKey(row.endpoint, row.coding)];
    if (!counts) continue;
    row.instructions = counts;
    row.instructionRatios = instructionRatiosOf(counts);
  }
}

async function conformanceRuns(
  plan: DatasetPlan,
  reference: ServerChild,
  keys: Record<string, string>,
): Promise<ConformanceFigures[]> {
  const runs: ConformanceFigures[] = [];
  for (const delayMs of [0, 100]) {
    progress(`${plan.name}: conformance run${delayMs ? ` with +${delayMs} ms per answer` : ''}`);
    runs.push(await timeConformanceRun(reference.baseUrl, { ...keys }, delayMs));
  }
  return runs;
}

async function inProcessStartups(plan: DatasetPlan): Promise<number[]> {
  progress(`${plan.name}: in-process start-up`);
  const samplesMs: number[] = [];
  for (let sample = 0; sample < plan.startupSamples; sample++) {
    const inProcess = await childJson<{ startupMs: number }>([
      ...NODE_WITH_TSX,
      'bench/children/start-in-process.ts',
      String(plan.walks),
    ]);
    samplesMs.push(inProcess.startupMs);
  }
  return samplesMs;
}

/** The mock as partners run it: `prism mock spec/openapi.yaml`, Prism's defaults, its log discarded. */
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

const NOTES = [
  'instructions per request (judged): the serving process under valgrind --tool=cachegrind --cache-sim=no --vex-guest-chase=no, node --single-threaded; one process started, warmed up (every kind of request) and stopped, and one per kind of request started, warmed up the same way, sent N more requests over one connection and stopped; (second total − first) ÷ N. Start-up and warm-up cancel out; JIT and garbage collection are counted, for every target alike',
  'CPU per request (reported, not judged: on this VM it swings 2-3 × between rounds): CPU time of every thread of the serving process (/proc/<pid>/task/*/schedstat, in ns) over a load round, divided by the requests it completed',
  'Express floor: express() with its defaults, one app.get per path, res.send(bytes) (Express adds its weak ETag per answer)',
  'Node floor: node:http, writeHead + end(bytes) with the header lines the reference wrote; both floors serve the bodies the reference answered, checked byte for byte',
  'Node floor holding data (large data set only): the same Node floor, started after generating the same data set and holding it in its heap, as the reference server does; what ref/Node holding data leaves out is what a heap that size costs every request: measured, not judged',
  `codings: every target is sent the same Accept-Encoding, "${CODINGS.gzip}" (what HTTP clients send by default) and, on the demo data set, "${CODINGS.identity}"`,
  'Prism mock: prism mock spec/openapi.yaml with its defaults (log discarded); it answers the spec’s small examples, not the data set: measured in its own rounds after the judged targets, not judged',
  'ratios: the median of per-round ratios (each round runs the reference and the floors back to back; ref/Prism pairs rounds that ran apart)',
];

function emptyReport(options: BenchOptions): Omit<BenchReport, 'targets' | 'wallS'> {
  return {
    version: 2,
    startedAt: new Date().toISOString(),
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
      rate: options.rate,
      warmupS: options.warmupS,
      durationS: options.durationS,
      rounds: options.rounds,
      largeWalks: options.largeWalks,
      fixtureSizes: options.skip.has('fixtures') ? [] : options.fixtureSizes,
      instructions: options.skip.has('instructions')
        ? null
        : {
            dataset: 'demo',
            codings: countedCodings(options),
            warmupRequests: options.countWarmup,
            requests: options.countRequests,
          },
    },
    load: [],
    revalidation: [],
    startup: [],
    fixtures: { sizes: [], growth: [] },
    conformance: [],
    requestLogs: [],
    notes: NOTES,
  };
}

/**
 * The codings counted on the demo data set. Under Valgrind every process takes 10-30 s to start,
 * and each coding adds three: a quick run counts gzip only. The large data set is never counted:
 * generating it under Valgrind would take minutes per process.
 */
function countedCodings(options: BenchOptions): Coding[] {
  if (options.skip.has('instructions')) return [];
  return options.mode === 'quick' ? ['gzip'] : ['gzip', 'identity'];
}

function plansOf(options: BenchOptions): DatasetPlan[] {
  const demo: DatasetPlan = {
    name: 'demo',
    walks: DEFAULT_WALKS,
    startupSamples: options.startupSamples,
    codings: ['gzip', 'identity'],
    heldFloor: false,
    counted: countedCodings(options),
  };
  if (options.skip.has('large')) return [demo];
  const large: DatasetPlan = {
    name: 'large',
    walks: options.largeWalks,
    startupSamples: 1,
    codings: ['gzip'],
    heldFloor: true,
    counted: [],
  };
  return [demo, large];
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const started = performance.now();
  const report = emptyReport(options);
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
    const bundles = await bundleFloors();
    for (const plan of plansOf(options)) {
      const withConformance = plan.name === 'demo' && !options.skip.has('conformance');
      addDataset(report, plan, await benchDataset(plan, options, bundles, prismStarted, withConformance));
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

function addDataset(
  report: Omit<BenchReport, 'targets' | 'wallS'>,
  plan: DatasetPlan,
  result: DatasetResult,
) {
  report.load.push(...result.load);
  report.revalidation.push(...result.revalidation);
  report.startup.push(result.startup);
  report.conformance.push(...result.conformance);
  report.requestLogs.push({
    dataset: plan.name,
    lines: result.logLines,
    measuredRequests: result.load.reduce((total, row) => total + (row.figures.reference?.requests ?? 0), 0),
  });
}
