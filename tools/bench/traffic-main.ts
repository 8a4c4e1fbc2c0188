/**
 * `npm run conformance:traffic-bench`: how fast and in how much memory `--traffic` judges a large
 * recording. Generates a HAR of real reference-server answers (10,000 exchanges, about 300 MB by
 * default) into a temporary directory, judges it in a fresh process (`traffic-judge.ts`), and
 * prints exchanges per second of wall time (the threshold: at least 2,000; per CPU-second beside it)
 * and peak memory against its threshold, a peak RSS below the file's size plus a bound. Figures are
 * printed, never asserted by a test.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CommandSpec, integerFlag, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { LIMIT, walkPath, WALKS_PATH } from '../../spec/facts.ts';
import { LAUNCHER } from '../../command-line/launch.js';
import { ROOT } from '../../command-line/bundle.js';

const CHILD = fileURLToPath(new URL('./traffic-judge.ts', import.meta.url));

/** What a tester should not wait longer than, nor give more memory than. */
const THRESHOLDS = { exchangesPerSecond: 2_000, memoryAboveFileMb: 64 } as const;
const DEFAULT_EXCHANGES = 10_000;
/** An average entry of about 30 KB makes 10,000 exchanges about 300 MB. */
const TARGET_ENTRY_BYTES = 30_000;

const COMMAND = {
  name: 'conformance:traffic-bench',
  usage: 'npm run conformance:traffic-bench [-- --exchanges N]',
  summary: `Generates a HAR recording of real reference-server answers (${DEFAULT_EXCHANGES} exchanges, about
300 MB) in a temporary directory, judges it with --traffic in a fresh process, and prints exchanges
per second of wall time (and per CPU-second, beside it) and peak memory against the thresholds
(>= ${THRESHOLDS.exchangesPerSecond} exchanges per second; peak RSS below the file's size + ${THRESHOLDS.memoryAboveFileMb} MB).
The file is removed afterwards.`,
  flags: {
    exchanges: {
      type: 'string',
      value: 'N',
      help: `Exchanges in the recording (default ${DEFAULT_EXCHANGES})`,
    },
  },
  sections: [{ title: 'Exit status', text: '  0 every threshold met; 1 a threshold missed; 2 usage.' }],
} as const satisfies CommandSpec;

interface Answer {
  path: string;
  status: number;
  headers: { name: string; value: string }[];
  body: string;
}

/** Real answers of the reference server: the list at its largest and a few walk details. */
async function sampleAnswers(): Promise<{ base: string; list: Answer; details: Answer[] }> {
  const server = await startReferenceServer({ log: false });
  try {
    const headers = { Authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}` };
    const ask = async (path: string): Promise<Answer> => {
      const answer = await fetch(`${server.baseUrl}${path}`, { headers });
      return {
        path,
        status: answer.status,
        headers: [...answer.headers].map(([name, value]) => ({ name, value })),
        body: await answer.text(),
      };
    };
    const list = await ask(`${WALKS_PATH}?${LIMIT.name}=${LIMIT.maximum}`);
    const ids = (JSON.parse(list.body) as { data: { id: string }[] }).data.map((w) => w.id);
    const details = await Promise.all(ids.slice(0, 20).map((id) => ask(walkPath(id))));
    return { base: server.baseUrl, list, details };
  } finally {
    await server.close();
  }
}

function entryText(base: string, answer: Answer, index: number): string {
  return JSON.stringify({
    startedDateTime: new Date(1_760_000_000_000 + index * 10).toISOString(),
    time: 5,
    request: {
      method: 'GET',
      url: `${base}${answer.path}`,
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Authorization', value: 'Bearer svc_sk_live_benchmarkkeybenchmarkkey' }],
      cookies: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: answer.status,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: answer.headers,
      cookies: [],
      content: { size: answer.body.length, mimeType: 'application/json', text: answer.body },
      redirectURL: '',
      headersSize: -1,
      bodySize: answer.body.length,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  });
}

/** Writes the recording as a stream (never whole in memory); returns its size in bytes. */
async function generate(file: string, exchanges: number): Promise<number> {
  const { base, list, details } = await sampleAnswers();
  const detailBytes = details.reduce((n, d) => n + d.body.length, 0) / details.length;
  const share = Math.min(
    1,
    Math.max(0, (TARGET_ENTRY_BYTES - detailBytes) / (list.body.length - detailBytes)),
  );
  const every = share > 0 ? Math.max(1, Math.round(1 / share)) : Infinity;
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{"log":{"version":"1.2","creator":{"name":"traffic-bench","version":"1"},"entries":[');
  for (let i = 0; i < exchanges; i++) {
    const answer = i % every === 0 ? list : (details[i % details.length] as Answer);
    await write(`${i === 0 ? '' : ','}\n${entryText(base, answer, i)}`);
  }
  await write('\n]}}\n');
  out.end();
  await once(out, 'close');
  return statSync(file).size;
}

interface JudgeFigures {
  exchanges: number;
  judged: number;
  /** Worker threads beside the main thread, and the exchanges they judged. */
  workers: number;
  onWorkers: number;
  ms: number;
  cpuMs: number;
  maxRssMb: number;
  peakHeapMb: number;
  verdict: string;
}

/** Judges the file in a fresh process, which reports its own figures as one JSON line. */
async function judge(file: string): Promise<JudgeFigures> {
  const child = spawn(process.execPath, [LAUNCHER, CHILD, file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [status] = (await once(child, 'exit')) as [number | null];
  if (status !== 0) throw new Error(`the judging process exited ${status}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as JudgeFigures;
}

async function main(exchanges: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'traffic-bench-'));
  try {
    const file = join(dir, 'recording.har');
    const bytes = await generate(file, exchanges);
    const fileMb = bytes / 1024 / 1024;
    const figures = await judge(file);
    const rate = figures.judged / (figures.ms / 1000);
    const cpuRate = figures.judged / (figures.cpuMs / 1000);
    const memoryThreshold = fileMb + THRESHOLDS.memoryAboveFileMb;
    // The judge runs on every core (worker threads beside the main thread): the wall time is what
    // a tester waits, and what the threshold judges. The CPU figure is what judging costs, all threads
    // together (V8's helper threads, garbage collection among them, counted too); on a shared
    // machine the wall time adds every wait for a core, hence the load it was measured under.
    const fast = rate >= THRESHOLDS.exchangesPerSecond;
    const small = figures.maxRssMb < memoryThreshold;
    const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
    const load = `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`;
    console.log(
      `traffic benchmark: ${exchanges} exchanges, ${fileMb.toFixed(0)} MB of HAR (verdict ${figures.verdict})`,
    );
    console.log(
      `  speed   ${rate.toFixed(0)} exchanges/s wall (${figures.judged} judged in ${(figures.ms / 1000).toFixed(2)} s; ${load}) · threshold ≥ ${THRESHOLDS.exchangesPerSecond}/s: ${mark(fast)}`,
    );
    console.log(
      `          ${cpuRate.toFixed(0)} exchanges per CPU-second (${(figures.cpuMs / 1000).toFixed(2)} s of CPU, all threads); the main thread and ${figures.workers} worker thread(s), which judged ${figures.onWorkers} exchanges`,
    );
    console.log(
      `  memory  peak RSS ${figures.maxRssMb.toFixed(0)} MB, peak heap ${figures.peakHeapMb.toFixed(0)} MB · threshold < ${memoryThreshold.toFixed(0)} MB (the file + ${THRESHOLDS.memoryAboveFileMb} MB): ${mark(small)}`,
    );
    return fast && small && figures.verdict === 'pass';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) => {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  return {
    exchanges: integerFlag('--exchanges', values.exchanges, { min: 1, max: 1_000_000 }, DEFAULT_EXCHANGES),
  };
});
if (typeof options === 'number') process.exitCode = options;
else process.exitCode = (await main(options.exchanges)) ? 0 : 1;
