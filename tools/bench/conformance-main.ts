/**
 * `npm run conformance:bench`: wall time and request count of a full live conformance run against
 * the local reference server, including the CLI's start-up, plain and with 100 ms added to every
 * answer by a delaying proxy; the requests of a `--depth full` run (the whole attacker's catalogue
 * on every refusal and route); and the catalogue's size by family. Figures are printed, never
 * asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delayingProxy } from './delaying-proxy.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import { DEFAULTS } from '../../conformance/config.ts';
import { catalogueSize, type Family, FAMILIES } from '../../conformance/rules/catalogue/catalogue.ts';
import type { Report } from '../../conformance/types.ts';
import { type CommandSpec, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { LAUNCHER } from '../../command-line/launch.js';
import { ROOT } from '../../command-line/bundle.js';

const DELAY_MS = 100;
/**
 * A default run judges every record of the demo data set, CLI spawn to exit, within the engine's
 * request budget with only the walks endpoints live. `--depth full` has no threshold: it is as
 * large as the catalogue times the refusals and routes, and says so before it starts.
 */
const THRESHOLDS = { maxConformanceMs: 5_000, maxDelayedConformanceMs: 12_000, maxConformanceRequests: 700 };

const COMMAND = {
  name: 'conformance:bench',
  usage: 'npm run conformance:bench',
  summary: `Times full live conformance runs against the local reference server, CLI start-up included:
one against the embedded server, one with every answer ${DELAY_MS} ms later through a delaying proxy.
Prints wall time, requests and verdict against their thresholds; never asserts.`,
  flags: {},
  sections: [{ title: 'Exit status', text: '  0 every threshold met; 1 a threshold missed; 2 usage.' }],
} as const satisfies CommandSpec;

interface Figures {
  scenario: string;
  wallMs: number;
  requests: number;
  verdict: string;
  /** Undefined: printed, with no threshold. */
  maxMs?: number;
}

/** Runs the CLI as a user would (a fresh process) and times it from spawn to exit. */
async function timeCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ wallMs: number; report: Report }> {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-bench-'));
  const output = join(dir, 'report.json');
  const started = performance.now();
  const status = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      [LAUNCHER, 'conformance/main.ts', ...args, '--reporter', 'json', '--output', output],
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
    if (status === 2) throw new Error('the run could not reach its target');
    return { wallMs, report: JSON.parse(readFileSync(output, 'utf8')) as Report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bench(): Promise<Figures[]> {
  const figures: Figures[] = [];
  const embedded = await timeCli([], { ...process.env, CONFORMANCE_BASE_URL: '' });
  figures.push({
    scenario: 'embedded reference server (no base URL), start-up included',
    wallMs: embedded.wallMs,
    requests: embedded.report.requests.sent,
    verdict: embedded.report.summary.verdict,
    maxMs: THRESHOLDS.maxConformanceMs,
  });

  const full = await timeCli(['--depth', 'full'], { ...process.env, CONFORMANCE_BASE_URL: '' });
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
    const delayed = await timeCli([], env);
    figures.push({
      scenario: `every answer ${DELAY_MS} ms later (delaying proxy), CLI start-up included`,
      wallMs: delayed.wallMs,
      requests: delayed.report.requests.sent,
      verdict: delayed.report.summary.verdict,
      maxMs: THRESHOLDS.maxDelayedConformanceMs,
    });
  } finally {
    await proxy.close();
    await server.close();
  }
  return figures;
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

/** The attacker's catalogue by family: its entries, and how many a default run tries. */
function catalogueLines(): string {
  const size = catalogueSize();
  const families = Object.entries(size) as [Family, { entries: number; default: number }][];
  const total = families.reduce((n, [, f]) => n + f.entries, 0);
  const rows = families.map(
    ([family, f]) =>
      `    ${FAMILIES[family].title.padEnd(46)} ${String(f.entries).padStart(3)} entries, ${f.default} by default`,
  );
  return [`  the attacker's catalogue: ${total} entries`, ...rows].join('\n');
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) =>
  readFlags(COMMAND, argv).values.help ? 'help' : {},
);
if (typeof options === 'number') process.exitCode = options;
else process.exitCode = report(await bench()) ? 0 : 1;
