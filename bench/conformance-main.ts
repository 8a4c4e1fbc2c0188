/**
 * `npm run conformance:bench`: wall time and request count of a full live conformance run against
 * the local reference server, including the CLI's start-up, plain and with 100 ms added to every
 * answer by a delaying proxy. Figures are printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delayingProxy } from './conformance-run.ts';
import { startReferenceServer } from '../reference-server/start.ts';
import { DEFAULTS } from '../conformance/config.ts';
import type { Report } from '../conformance/types.ts';
import { TARGETS } from './figures.ts';
import { type CommandSpec, optionsOrExit, readFlags } from '../command-line/flags.ts';
import { LAUNCHER } from '../command-line/launch.js';
import { ROOT } from './processes.ts';

const DELAY_MS = 100;

const COMMAND = {
  name: 'conformance:bench',
  usage: 'npm run conformance:bench',
  summary: `Times full live conformance runs against the local reference server, CLI start-up included:
one against the embedded server, one with every answer ${DELAY_MS} ms later through a delaying proxy.
Prints wall time, requests and verdict against the targets; never asserts.`,
  flags: {},
  sections: [{ title: 'Exit status', text: '  0 every target met; 1 a target missed; 2 usage.' }],
} as const satisfies CommandSpec;

interface Figures {
  scenario: string;
  wallMs: number;
  requests: number;
  verdict: string;
  maxMs: number;
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

/** The environment with nothing pointing at a deployment, so the CLI checks its embedded server. */
function withoutDeployment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('CONFORMANCE_')));
}

async function bench(): Promise<Figures[]> {
  const figures: Figures[] = [];
  const embedded = await timeCli([], withoutDeployment(process.env));
  figures.push({
    scenario: 'embedded reference server (no base URL), start-up included',
    wallMs: embedded.wallMs,
    requests: embedded.report.requests.sent,
    verdict: embedded.report.summary.verdict,
    maxMs: TARGETS.maxConformanceMs,
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
      maxMs: TARGETS.maxDelayedConformanceMs,
    });
  } finally {
    await proxy.close();
    await server.close();
  }
  return figures;
}

/** Prints the figures against their targets; whether all were met. */
function report(figures: Figures[]): boolean {
  console.log(
    `conformance benchmark (default concurrency ${DEFAULTS.concurrency}, timeout ${DEFAULTS.timeoutMs / 1000} s)`,
  );
  const metAll = figures.map((f) => {
    const met = f.wallMs <= f.maxMs && f.requests <= TARGETS.maxConformanceRequests && f.verdict === 'pass';
    console.log(
      `  ${f.scenario}\n    wall ${(f.wallMs / 1000).toFixed(2)} s · ${f.requests} requests · verdict ${f.verdict} · target ≤ ${f.maxMs / 1000} s, ≤ ${TARGETS.maxConformanceRequests} requests, pass: ${met ? 'met' : 'MISSED'}`,
    );
    return met;
  });
  return !metAll.includes(false);
}

const options = optionsOrExit(COMMAND, process.argv.slice(2), (argv) =>
  readFlags(COMMAND, argv).values.help ? 'help' : {},
);
if (typeof options === 'number') process.exitCode = options;
else process.exitCode = report(await bench()) ? 0 : 1;
