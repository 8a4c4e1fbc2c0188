/**
 * `npm run conformance:bench`: wall time and request count of a full live conformance run against
 * the local reference server, including the CLI's start-up, plain and with 100 ms added to every
 * answer by a delaying proxy, the delayed run against its round-trip floor, and the requests a
 * further live collection adds (the lists live in a copy of the spec); the requests of a `--depth full` run (the whole attacker's catalogue
 * on every refusal and route) and the catalogue's size by family; then the pace against a per-key
 * limit of 10 requests a second (429 with Retry-After past it, `tools/test-support/rate-limited.ts`): the wall
 * time against its floor (requests ÷ 10/s), the share of 429s, and the busiest second under
 * `--rate-limit 20/s`. Figures are printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delayingProxy } from './delaying-proxy.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { DEFAULTS } from '../../conformance/cli/config.ts';
import type { Har } from '../../conformance/reporters/har.ts';
import type { Report } from '../../conformance/core/report-model.ts';
import {
  catalogueSize,
  type Family,
  FAMILIES,
  KEYED_FAMILIES,
  type KeyedFamily,
  keyedFamilyOf,
} from '../../conformance/rules/catalogue/catalogue.ts';
import { FAMILY_RULE } from '../../conformance/rules/catalogue/rules.ts';
import { KEYED_RULE_OF } from '../../conformance/rules/catalogue/keyed-rules.ts';
import { type CommandSpec, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { LAUNCHER } from '../../command-line/launch.js';
import { ROOT } from '../../command-line/bundle.js';
import { startRateLimitedProxy } from '../test-support/rate-limited.ts';
import { listsLiveSpec, startListsServer } from '../test-support/lists-server.ts';
import { busiestSecond } from '../../conformance/transport/windows.ts';

const DELAY_MS = 100;
/** The per-key limit of the rate-limited target, and the cap the second paced run asks for. */
const LIMIT_PER_SECOND = 10;
const ASKED = '20/s';
/** A default run judges every record of the demo data set, CLI spawn to exit. */
const THRESHOLDS = {
  maxConformanceMs: 5_000,
  maxDelayedConformanceMs: 12_000,
  maxConformanceRequests: 760,
  /** A further live collection (the lists, with 12 lists listed to the primary key) adds at most this many requests. */
  maxRequestsPerCollection: 150,
  /** The delayed run's time (without the CLI's start-up) at most this times its round-trip floor. */
  maxOverRoundTripFloor: 1.2,
  /**
   * Against a per-key limit: the run's wall time ÷ its floor (requests ÷ the allowed rate) at most
   * this. The run keeps 85 % of what a key got through (conformance/transport/pace.ts), 8 of 10 a
   * second, so 1.25 is the least it can be; the lessons' pauses add the rest.
   */
  maxOverRateFloor: 1.6,
  /** Against a per-key limit: the share of the run's requests answered 429, at most this. */
  maxThrottledShare: 0.05,
  /** Against 30 % random 429s: the run's wall time at most this times the same run's without faults. */
  maxOverFaultless: 3,
};
/** The share of requests the sandbox answers 429 at random (a fault, not a limit). */
const RANDOM_429_SHARE = 0.3;

const COMMAND = {
  name: 'conformance:bench',
  usage: 'npm run conformance:bench',
  summary: `Times full live conformance runs against the local reference server, CLI start-up included:
one against the embedded server, one with every answer ${DELAY_MS} ms later through a delaying proxy,
then two against a per-key limit of ${LIMIT_PER_SECOND} requests/s (429 with Retry-After past it): the
wall time against its floor and the share of 429s, and the busiest second under --rate-limit ${ASKED};
and a run against ${RANDOM_429_SHARE * 100} % random 429s beside the same run without them.
Prints every figure beside its target; never asserts.`,
  flags: {
    pace: { type: 'boolean', help: 'Only the pace figures: the per-key limit, --rate-limit, random 429s' },
  },
  sections: [{ title: 'Exit status', text: '  0 every threshold met; 1 a threshold missed; 2 usage.' }],
} as const satisfies CommandSpec;

interface Figures {
  scenario: string;
  wallMs: number;
  requests: number;
  verdict: string;
  /** Undefined: printed, with no threshold (`--depth full` says its size before it starts). */
  maxMs?: number;
}

/** Runs the CLI as a user would (a fresh process) and times it from spawn to exit. */
async function timeCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ wallMs: number; report: Report; starts: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-bench-'));
  const output = join(dir, 'report.json');
  const har = join(dir, 'run.har');
  const started = performance.now();
  const status = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      [LAUNCHER, 'conformance/main.ts', ...args, '--reporter', 'json', '--output', output, '--har', har],
      {
        cwd: ROOT,
        env,
        stdio: 'ignore',
      },
    );
    child.on('exit', resolve);
  });
  const wallMs = performance.now() - started;
  try {
    if (status === 2 && !existsSync(output)) throw new Error('the run could not reach its target');
    // When each attempt started, as the run recorded it (whole milliseconds).
    const { log } = JSON.parse(readFileSync(har, 'utf8')) as Har;
    const starts = log.entries.map((entry) => Date.parse(entry.startedDateTime));
    return { wallMs, report: JSON.parse(readFileSync(output, 'utf8')) as Report, starts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The environment with nothing pointing at a deployment, so the CLI checks its embedded server. */
function withoutDeployment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('CONFORMANCE_')));
}

/** The default and `--depth full` runs' reports, for the requests each family's rule judged. */
let defaultRun: Report | undefined;
let fullRun: Report | undefined;

/** The delayed run's report, for its round-trip floor. */
let roundTrip: Report | undefined;
/** The round trip of one request through the delaying proxy, measured alone before the run. */
let roundTripMs: number | undefined;

/** The median of `n` round trips, one at a time, of the run's most common request: a list read. */
async function measuredRoundTrip(url: string, key: string, n = 21): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const answer = await fetch(`${url}/api/v1/walks`, { headers: { authorization: `Bearer ${key}` } });
    await answer.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)] as number;
}

async function bench(): Promise<Figures[]> {
  const figures: Figures[] = [];
  const embedded = await timeCli([], withoutDeployment(process.env));
  figures.push({
    scenario: 'embedded reference server (no base URL), start-up included',
    wallMs: embedded.wallMs,
    requests: embedded.report.requests.sent,
    verdict: embedded.report.summary.verdict,
    maxMs: THRESHOLDS.maxConformanceMs,
  });

  defaultRun = embedded.report;
  const full = await timeCli(['--depth', 'full'], withoutDeployment(process.env));
  fullRun = full.report;
  figures.push({
    scenario: 'embedded reference server, --depth full (the whole catalogue), start-up included',
    wallMs: full.wallMs,
    requests: full.report.requests.sent,
    verdict: full.report.summary.verdict,
  });

  const server = await startReferenceServer({ port: 0, log: false });
  const proxy = await delayingProxy(server.baseUrl, DELAY_MS);
  try {
    const env = { ...process.env, ...server.credentials, CONFORMANCE_BASE_URL: proxy.url };
    roundTripMs = await measuredRoundTrip(proxy.url, server.credentials.CONFORMANCE_API_KEY);
    const delayed = await timeCli([], env);
    figures.push({
      scenario: `every answer ${DELAY_MS} ms later (delaying proxy), CLI start-up included`,
      wallMs: delayed.wallMs,
      requests: delayed.report.requests.sent,
      verdict: delayed.report.summary.verdict,
      maxMs: THRESHOLDS.maxDelayedConformanceMs,
    });
    roundTrip = delayed.report;
  } finally {
    await proxy.close();
    await server.close();
  }
  return figures;
}

/**
 * The delayed run against its round-trip floor: its requests ÷ the concurrency × the round trip
 * at that distance (one request's, measured alone through the same proxy just before), the least
 * time a run of that many requests can take there (the run's own time, CLI start-up apart). The
 * floor with the added delay alone is printed beside it: a round trip is never shorter.
 */
function roundTripLine(): boolean {
  if (!roundTrip || roundTripMs === undefined) return false;
  const rounds = roundTrip.requests.sent / DEFAULTS.concurrency;
  const floorMs = rounds * roundTripMs;
  const ratio = roundTrip.durationMs / floorMs;
  const met = ratio <= THRESHOLDS.maxOverRoundTripFloor;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `  round trips at +${DELAY_MS} ms: the run took ${seconds(roundTrip.durationMs)} against its floor ${seconds(floorMs)} (${roundTrip.requests.sent} requests ÷ ${DEFAULTS.concurrency} at a time × a round trip of ${roundTripMs.toFixed(1)} ms) = ${ratio.toFixed(2)}× · threshold ≤ ${THRESHOLDS.maxOverRoundTripFloor}×: ${met ? 'met' : 'MISSED'}`,
  );
  console.log(
    `    (against the added ${DELAY_MS} ms alone, ${seconds(rounds * DELAY_MS)}: ${(roundTrip.durationMs / (rounds * DELAY_MS)).toFixed(2)}×)`,
  );
  return met;
}

/**
 * What a further live collection costs: the same deployment (the reference server, with the lists
 * served beside it) judged by the project's spec and by a copy of it with the lists live.
 */
async function perCollection(): Promise<boolean> {
  const server = await startListsServer();
  try {
    const env = {
      ...withoutDeployment(process.env),
      ...server.credentials,
      CONFORMANCE_BASE_URL: server.urlOf('none'),
    };
    const walks = await timeCli([], env);
    const lists = await timeCli(['--spec', listsLiveSpec()], env);
    const added = lists.report.requests.sent - walks.report.requests.sent;
    const met = added <= THRESHOLDS.maxRequestsPerCollection;
    console.log(
      `  a further live collection: ${walks.report.requests.sent} requests with the walks live, ${lists.report.requests.sent} with the lists live too (verdict ${lists.report.summary.verdict}) = +${added} · threshold ≤ ${THRESHOLDS.maxRequestsPerCollection}: ${met ? 'met' : 'MISSED'}`,
    );
    return met && lists.report.summary.verdict === 'pass';
  } finally {
    await server.close();
  }
}

interface PaceFigures {
  wallMs: number;
  requests: number;
  throttled: number;
  /** The busiest second of request starts, as the run recorded them, and as the target saw them arrive. */
  busiestStarts: number;
  busiestArrivals: number;
  /** 429s per key, in the order the target first saw each key. */
  throttledByKey: number[];
  verdict: string;
}

/** A full run against the reference server behind a per-key limit, with these flags. */
async function pacedRun(flags: string[]): Promise<PaceFigures> {
  const server = await startReferenceServer({ port: 0, log: false });
  const limited = await startRateLimitedProxy(server.baseUrl, LIMIT_PER_SECOND);
  try {
    const env = {
      ...withoutDeployment(process.env),
      ...server.credentials,
      CONFORMANCE_BASE_URL: limited.url,
    };
    const run = await timeCli(flags, env);
    const arrivals = limited.arrivals;
    const throttled = arrivals.filter((a) => a.status === 429);
    const throttledByKey: number[] = [];
    for (const a of throttled) throttledByKey[a.key] = (throttledByKey[a.key] ?? 0) + 1;
    return {
      wallMs: run.wallMs,
      requests: arrivals.length,
      throttled: throttled.length,
      busiestStarts: busiestSecond(run.starts),
      busiestArrivals: busiestSecond(arrivals.map((a) => a.at)),
      throttledByKey: [...throttledByKey].map((n) => n ?? 0),
      verdict: run.report.summary.verdict,
    };
  } finally {
    await limited.close();
    await server.close();
  }
}

/** The paced runs against their goals; whether all were met. */
async function pace(): Promise<boolean> {
  console.log(`against a per-key limit of ${LIMIT_PER_SECOND} requests/s (429 with Retry-After past it)`);
  const plain = await pacedRun([]);
  const floorMs = (plain.requests / LIMIT_PER_SECOND) * 1000;
  const share = plain.throttled / plain.requests;
  const wallMet = plain.wallMs <= floorMs * THRESHOLDS.maxOverRateFloor;
  const shareMet = share <= THRESHOLDS.maxThrottledShare;
  console.log(
    `  no --rate-limit: the run learns the limit from its 429s\n    wall ${(plain.wallMs / 1000).toFixed(1)} s against its floor ${(floorMs / 1000).toFixed(1)} s (${plain.requests} requests ÷ ${LIMIT_PER_SECOND}/s) = ${(plain.wallMs / floorMs).toFixed(2)}× · target ≤ ${THRESHOLDS.maxOverRateFloor}×: ${wallMet ? 'met' : 'MISSED'}\n    429s ${plain.throttled} of ${plain.requests} requests = ${(share * 100).toFixed(1)} % · target ≤ ${THRESHOLDS.maxThrottledShare * 100} %: ${shareMet ? 'met' : 'MISSED'} (by key: ${plain.throttledByKey.join(', ')}) · verdict ${plain.verdict}`,
  );
  const asked = await pacedRun(['--rate-limit', ASKED]);
  const cap = Number(ASKED.split('/')[0]);
  const capMet = asked.busiestStarts <= cap;
  console.log(
    `  --rate-limit ${ASKED}\n    busiest one-second window ${asked.busiestStarts} request starts · target ≤ ${cap}: ${capMet ? 'met' : 'MISSED'} (as the target saw them arrive: ${asked.busiestArrivals}) · ${asked.throttled} of ${asked.requests} answered 429 · wall ${(asked.wallMs / 1000).toFixed(1)} s · verdict ${asked.verdict}`,
  );
  return wallMet && shareMet && capMet && plain.verdict === 'pass' && asked.verdict === 'pass';
}

/**
 * A sandbox that answers ${RANDOM_429_SHARE} of its requests 429 at random (`--faults 0.3 --fault-kinds
 * 429`, `Retry-After: 1`): the run's wall time beside the same run against the same server without
 * faults. Random 429s teach no limit: only the refused requests wait.
 */
async function randomThrottling(): Promise<boolean> {
  const runAgainst = async (faults: boolean) => {
    const server = await startReferenceServer({
      port: 0,
      log: false,
      ...(faults
        ? { turbulence: { seed: 1, faults: { rate: RANDOM_429_SHARE, kinds: ['429'] as const } } }
        : {}),
    });
    try {
      const env = {
        ...withoutDeployment(process.env),
        ...server.credentials,
        CONFORMANCE_BASE_URL: server.baseUrl,
      };
      return await timeCli([], env);
    } finally {
      await server.close();
    }
  };
  const faultless = await runAgainst(false);
  const faulty = await runAgainst(true);
  const ratio = faulty.wallMs / faultless.wallMs;
  const met = ratio <= THRESHOLDS.maxOverFaultless && faulty.report.summary.verdict === 'pass';
  console.log(
    `against ${RANDOM_429_SHARE * 100} % random 429s (Retry-After: 1)\n    wall ${(faulty.wallMs / 1000).toFixed(1)} s, ${faulty.report.requests.sent} requests (${faulty.report.requests.rateLimit?.throttled ?? 0} answered 429), verdict ${faulty.report.summary.verdict} · without faults ${(faultless.wallMs / 1000).toFixed(1)} s, ${faultless.report.requests.sent} requests = ${ratio.toFixed(2)}× · target ≤ ${THRESHOLDS.maxOverFaultless}×: ${met ? 'met' : 'MISSED'}`,
  );
  return met;
}

/** Prints the figures against their thresholds; whether all were met. */
function report(figures: Figures[]): boolean {
  console.log(
    `conformance benchmark (default concurrency ${DEFAULTS.concurrency}, timeout ${DEFAULTS.timeoutMs / 1000} s)`,
  );
  const metAll = figures.map((f) => {
    const measured = `wall ${(f.wallMs / 1000).toFixed(2)} s · ${f.requests} requests · verdict ${f.verdict}`;
    if (f.maxMs === undefined) {
      console.log(`  ${f.scenario}\n    ${measured} · no threshold`);
      return f.verdict === 'pass';
    }
    const met =
      f.wallMs <= f.maxMs && f.requests <= THRESHOLDS.maxConformanceRequests && f.verdict === 'pass';
    console.log(
      `  ${f.scenario}\n    ${measured} · threshold ≤ ${f.maxMs / 1000} s, ≤ ${THRESHOLDS.maxConformanceRequests} requests, pass: ${met ? 'met' : 'MISSED'}`,
    );
    return met;
  });
  console.log(catalogueLines());
  return !metAll.includes(false);
}

/** The requests a family's rule judged in a run (its coverage), or `-` when the run has no such rule. */
function judgedBy(report: Report | undefined, id: string): string {
  const requests = report?.results.find((r) => r.id === id)?.judged?.requests;
  return requests === undefined ? '-' : String(requests);
}

/**
 * The attacker's catalogue by family: its entries, how many a default run tries, and the requests
 * its rule judged in the default and the `--depth full` run.
 */
function catalogueLines(): string {
  const families = Object.entries(catalogueSize()) as [Family, { entries: number; default: number }][];
  const keyed = Object.keys(KEYED_FAMILIES) as KeyedFamily[];
  const total =
    families.reduce((n, [, f]) => n + f.entries, 0) + keyed.reduce((n, k) => n + keyedFamilyOf(k).length, 0);
  const row = (title: string, entries: number, byDefault: number, id: string) =>
    `    ${title.padEnd(70)} ${String(entries).padStart(3)} entries, ${String(byDefault).padStart(2)} by default · ${id}: ${judgedBy(defaultRun, id)} requests by default, ${judgedBy(fullRun, id)} in full`;
  const rows = [
    ...families.map(([family, f]) => row(FAMILIES[family].title, f.entries, f.default, FAMILY_RULE[family])),
    ...keyed.map((family) => {
      const entries = keyedFamilyOf(family);
      return row(
        KEYED_FAMILIES[family].title,
        entries.length,
        entries.filter((e) => e.default).length,
        KEYED_RULE_OF[family],
      );
    }),
  ];
  return [`  the attacker's catalogue: ${total} entries (requests: those its rule judged)`, ...rows].join(
    '\n',
  );
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) => {
  const { values } = readFlags(COMMAND, argv);
  return values.help ? 'help' : { paceOnly: values.pace === true };
});
if (typeof options === 'number') process.exitCode = options;
else if (options.paceOnly) {
  const paced = await pace();
  const random = await randomThrottling();
  process.exitCode = paced && random ? 0 : 1;
} else {
  const timed = report(await bench());
  const near = roundTripLine();
  const collection = await perCollection();
  const paced = await pace();
  const random = await randomThrottling();
  process.exitCode = timed && near && collection && paced && random ? 0 : 1;
}
