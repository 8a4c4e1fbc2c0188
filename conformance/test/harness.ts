/**
 * What the suite's tests share: a config for a target, an in-process run of the CLI, a hostile
 * answer, a recorded JSON exchange as the rules observe it. Servers of their own listen through `tools/test-support/listen.ts`.
 */
import type { ServerResponse } from 'node:http';
import { WEB_BASE_URL_NAME } from '../../spec/facts.ts';
import { type Io, main } from '../cli/cli.ts';
import { DEFAULTS } from '../cli/config.ts';
import type { KeyName, SuiteConfig } from '../core/configuration.ts';
import type { CheckResult, Report } from '../core/report-model.ts';
import { Keyring } from '../core/credentials.ts';
import type { Exchange } from '../core/exchange.ts';
import type { Observation } from '../core/observation.ts';
import { observe } from '../core/observe.ts';
import type { SpecModel } from '../core/spec-model.ts';

export type Credentials = Partial<Record<KeyName | typeof WEB_BASE_URL_NAME, string>>;

export function configFor(
  baseUrl: string,
  credentials: Credentials,
  overrides: Partial<SuiteConfig> = {},
): SuiteConfig {
  const { [WEB_BASE_URL_NAME]: webBaseUrl, ...keys } = credentials;
  const config: SuiteConfig = {
    ...DEFAULTS,
    baseUrl,
    strict: false,
    keys,
    embedded: false,
    ...overrides,
  };
  if (webBaseUrl && !('webBaseUrl' in overrides)) config.webBaseUrl = webBaseUrl;
  return config;
}

export function resultOf(report: Report, id: string): CheckResult {
  const result = report.results.find((r) => r.id === id);
  if (!result) throw new Error(`the report has no result for ${id}`);
  return result;
}

/** The failures of required checks, as `ID: actual` lines (empty when the verdict is pass). */
export function requiredFailures(report: Report): string[] {
  return report.results
    .filter((r) => r.status === 'fail' && r.effectiveLevel === 'required')
    .map((r) => `${r.id}: ${r.actual}`);
}

/** What one in-process run of the CLI printed, and its exit status. */
export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI's `main` in-process with `env` as its environment, capturing what it prints. */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined> = {},
  io: Pick<Io, 'live' | 'color'> = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const status = await main(argv, env, { ...io, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

/**
 * A hostile answer: writes `total` bytes of spaces to `res` as fast as the client reads, and stops
 * when the connection goes. Returns how many bytes it has handed to the socket so far.
 */
export function pourBytes(res: ServerResponse, total: number): () => number {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  const pump = () => {
    while (!closed && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return;
    }
    if (!closed) res.end();
  };
  res.on('drain', pump);
  pump();
  return () => sent;
}

/** A JUnit report's counts, added up over its suites (the root totals all but skipped, which junit-10.xsd does not allow there). */
export function junitTotals(xml: string): {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
} {
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const [suite] of xml.matchAll(/<testsuite [^>]*>/g)) {
    for (const name of Object.keys(totals) as (keyof typeof totals)[]) {
      totals[name] += Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? 0);
    }
  }
  return totals;
}

/** A GET of `url` from a recording, answered `status` with this JSON, as the rules observe it. */
export function recordedJson(
  spec: SpecModel,
  exchange: {
    seq: number;
    url: string;
    status: number;
    json: unknown;
    startedAt?: number;
    headers?: Record<string, string>;
  },
): Observation {
  const body = JSON.stringify(exchange.json);
  const recorded: Exchange = {
    seq: exchange.seq,
    startedAt: exchange.startedAt ?? 0,
    request: { method: 'GET', url: exchange.url, keys: [], headers: exchange.headers ?? {}, curl: '' },
    response: {
      status: exchange.status,
      headers: { 'content-type': 'application/json' },
      contentType: 'application/json',
      mediaType: 'application/json',
      body,
      bytes: body.length,
      json: exchange.json,
    },
    durationMs: 1,
    retries: 0,
  };
  const keyring = new Keyring({ keys: {}, ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}) });
  return observe(recorded, { spec, keyring, basePath: '', source: 'traffic' });
}
