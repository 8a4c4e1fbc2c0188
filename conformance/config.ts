/**
 * Configuration from the environment and the command line (flags override the environment), checked
 * once. Anything unusable is a `ConfigError`, which the CLI turns into exit status 2.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { KeyName, SuiteConfig } from './types.ts';
import { KEY_NAMES } from './types.ts';

export { KEY_NAMES } from './types.ts';
export type { KeyName, SuiteConfig } from './types.ts';

export const REPORTER_NAMES = ['console', 'junit', 'json', 'html'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
export const USER_AGENT = `canvassing-conformance/${VERSION}`;

export const DEFAULTS = {
  profile: 'live',
  concurrency: 4,
  timeoutMs: 10_000,
  maxRequests: 500,
  maxResponseBytes: 8 * 1024 * 1024,
  maxRetryWaitMs: 10_000,
  seed: 20261124,
} as const;

export class ConfigError extends Error {
  readonly code = 'CONFORMANCE_CONFIG';
}

export interface CliOptions {
  /** Missing when neither `--base-url` nor `CONFORMANCE_BASE_URL` is set: the embedded default. */
  config: Omit<SuiteConfig, 'baseUrl' | 'embedded'> & { baseUrl?: string };
  reporters: { name: ReporterName; output?: string }[];
  /** `--har FILE`: the run's traffic as HAR 1.2, keys redacted. */
  har?: string;
  /** `--expect-failures FILE`: known failing requirement ids with reasons (JSON or YAML). */
  expectFailures?: string;
  /** `--compare FILE`: a previous `--reporter json` report to compare with. */
  compare?: string;
  help: boolean;
  list: boolean;
}

type Env = Record<string, string | undefined>;

export function parseCli(argv: string[], env: Env): CliOptions {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const flags = parsed.values;
  if (parsed.positionals.length > 0) {
    throw new ConfigError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}; see --help`);
  }
  const merged: Env = { ...(flags['env-file'] ? readEnvFile(flags['env-file']) : {}), ...env };
  const keys: Partial<Record<KeyName, string>> = {};
  for (const name of KEY_NAMES) {
    const value = merged[name]?.trim();
    if (value) keys[name] = value;
  }
  const profile = flags.profile ?? merged.CONFORMANCE_PROFILE ?? DEFAULTS.profile;
  if (profile !== 'live' && profile !== 'mock') {
    throw new ConfigError(`--profile must be live or mock, not ${JSON.stringify(profile)}`);
  }
  const baseUrl = flags['base-url'] ?? (merged.CONFORMANCE_BASE_URL?.trim() || undefined);
  const webBaseUrl = flags['web-base-url'] ?? (merged.CONFORMANCE_WEB_BASE_URL?.trim() || undefined);
  const config: CliOptions['config'] = {
    profile,
    strict:
      flags.strict === true || merged.CONFORMANCE_STRICT === '1' || merged.CONFORMANCE_STRICT === 'true',
    keys,
    concurrency: integerFlag('--concurrency', flags.concurrency, DEFAULTS.concurrency, 1, 64),
    timeoutMs: integerFlag('--timeout', flags.timeout, DEFAULTS.timeoutMs, 100, 600_000),
    maxRequests: integerFlag('--max-requests', flags['max-requests'], DEFAULTS.maxRequests, 1, 100_000),
    maxResponseBytes: integerFlag(
      '--max-response-bytes',
      flags['max-response-bytes'],
      DEFAULTS.maxResponseBytes,
      1024,
      1024 ** 3,
    ),
    maxRetryWaitMs: integerFlag(
      '--max-retry-wait',
      flags['max-retry-wait'],
      DEFAULTS.maxRetryWaitMs,
      0,
      120_000,
    ),
    seed: integerFlag('--seed', flags.seed, DEFAULTS.seed, 0, 2 ** 31 - 1),
  };
  if (baseUrl !== undefined) config.baseUrl = normalizeBaseUrl(baseUrl, '--base-url / CONFORMANCE_BASE_URL');
  if (webBaseUrl !== undefined) {
    config.webBaseUrl = normalizeBaseUrl(webBaseUrl, 'CONFORMANCE_WEB_BASE_URL');
  }
  if (flags.sample !== undefined) config.sample = integerFlag('--sample', flags.sample, 0, 1, 1_000_000);
  if (flags.spec !== undefined) {
    if (flags.spec.trim() === '') throw new ConfigError('--spec needs an OpenAPI file');
    config.specPath = resolve(flags.spec);
  }
  if (flags.only?.length) config.only = flags.only.flatMap((v) => v.split(',')).filter(Boolean);
  if (config.baseUrl !== undefined && config.profile === 'live' && !keys.CONFORMANCE_API_KEY) {
    throw new ConfigError(
      'CONFORMANCE_API_KEY is not set: export it (the key of the campaign under test, scope walks:read)',
    );
  }
  const options: CliOptions = {
    config,
    reporters: parseReporters(flags.reporter ?? [], flags.output ?? []),
    help: !!flags.help,
    list: !!flags.list,
  };
  for (const [flag, name] of [
    ['har', 'har'],
    ['expect-failures', 'expectFailures'],
    ['compare', 'compare'],
  ] as const) {
    const value = flags[flag];
    if (value === undefined) continue;
    if (value.trim() === '') throw new ConfigError(`--${flag} needs a file`);
    options[name] = value;
  }
  return options;
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'base-url': { type: 'string' },
      profile: { type: 'string' },
      strict: { type: 'boolean' },
      concurrency: { type: 'string' },
      timeout: { type: 'string' },
      'max-requests': { type: 'string' },
      'max-response-bytes': { type: 'string' },
      'max-retry-wait': { type: 'string' },
      sample: { type: 'string' },
      seed: { type: 'string' },
      'web-base-url': { type: 'string' },
      'env-file': { type: 'string' },
      reporter: { type: 'string', multiple: true },
      output: { type: 'string', multiple: true },
      only: { type: 'string', multiple: true },
      har: { type: 'string' },
      'expect-failures': { type: 'string' },
      compare: { type: 'string' },
      spec: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function integerFlag(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

export function normalizeBaseUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http or https URL, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new ConfigError(`${name} must not carry credentials`);
  if (url.search || url.hash) throw new ConfigError(`${name} must not carry a query or a fragment`);
  return url.href.replace(/\/+$/, '');
}

const DEFAULT_EXTENSION: Record<ReporterName, string> = {
  console: 'txt',
  junit: 'junit.xml',
  json: 'json',
  html: 'html',
};

/**
 * `--reporter junit,json --output a.xml --output b.json`: file reporters take the outputs in order;
 * console always prints to stdout. A file reporter without an output writes to `reports/`.
 */
function parseReporters(rawNames: string[], outputs: string[]): CliOptions['reporters'] {
  const names = rawNames
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  const chosen: CliOptions['reporters'] = [{ name: 'console' }];
  const files = [...outputs];
  for (const name of names) {
    if (!(REPORTER_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError(
        `--reporter must be one of ${REPORTER_NAMES.join(', ')}, not ${JSON.stringify(name)}`,
      );
    }
    if (name === 'console') continue;
    if (chosen.some((r) => r.name === name)) continue;
    const output = files.shift() ?? `reports/conformance.${DEFAULT_EXTENSION[name as ReporterName]}`;
    chosen.push({ name: name as ReporterName, output });
  }
  if (files.length > 0) {
    throw new ConfigError(
      '--output given without a file reporter for it: add --reporter junit, json or html',
    );
  }
  return chosen;
}

/** Reads dotenv lines (`NAME=value`, `#` comments), as `--print-credentials` writes them. */
function readEnvFile(path: string): Env {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`--env-file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const env: Env = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match?.[1] || line.trimStart().startsWith('#')) continue;
    env[match[1]] = (match[2] ?? '').replace(/^(['"])(.*)\1$/, '$2');
  }
  return env;
}

export const HELP = `Usage: npm run conformance -- [options]

Checks a deployment of the Campaign Canvassing Read API against the written specification and
spec/openapi.yaml. With no base URL at all it starts the reference server in-process on a free
port, with its demo credentials, and checks that.

Options (flags override the environment):
  --base-url URL          Deployment to check (env CONFORMANCE_BASE_URL), e.g. https://staging.example
  --profile live|mock     live (default): real data and keys. mock: a Prism mock of spec/openapi.yaml
                          (checks needing real data or keys are skipped; others use Prefer headers)
  --strict                Drift is failure: undocumented fields, statuses and content types
                          (env CONFORMANCE_STRICT=1)
  --concurrency N         Requests in flight at once (default ${DEFAULTS.concurrency})
  --timeout MS            Per-request timeout, headers and body together (default ${DEFAULTS.timeoutMs})
  --max-requests N        Total request budget of the run (default ${DEFAULTS.maxRequests})
  --max-response-bytes N  Larger answers are cut off and fail (default ${DEFAULTS.maxResponseBytes})
  --max-retry-wait MS     Longest Retry-After honoured on a 429 before one retry (default ${DEFAULTS.maxRetryWaitMs})
  --sample N              Judge N records per sweep, chosen by the seed, for very large or slow targets
                          (default: every record; the summary says "sampled N of M")
  --seed S                Seed of every random choice: limit values, samples (default ${DEFAULTS.seed};
                          printed in every report, so a failure reproduces)
  --web-base-url URL      Expected {web_base_url} of web_url/app_link (env CONFORMANCE_WEB_BASE_URL)
  --env-file FILE         Read CONFORMANCE_* variables from a dotenv file (the environment wins)
  --reporter NAME         junit, json or html, in addition to the console (repeatable or a comma list);
                          html is one self-contained page QA can attach to a build
  --output FILE           File of the file reporter(s), in the order given (default reports/conformance.*)
  --har FILE              Record the run's traffic as HAR 1.2; keys appear as $CONFORMANCE_API_KEY etc.
  --expect-failures FILE  Known failing requirement ids, JSON or YAML: [{ id, reason }, ...]. They are
                          reported but do not fail the run; a listed check that passes fails the run
                          (remove its entry); an unknown id is unusable configuration (exit 2)
  --compare FILE          A previous --reporter json report: prints and reports what changed since
                          (newly failing, newly passing, new advisories, new and gone drift)
  --spec FILE             Judge against this OpenAPI document instead of the bundled spec/openapi.yaml
                          (e.g. the next version); reports record its path, info.version and hash
  --only PREFIX           Run only checks whose id starts with PREFIX (repeatable), e.g. --only AUTH
  --list                  Print the checks (id, level, section, title) and exit
  -h, --help              This text

Environment:
  CONFORMANCE_BASE_URL            base URL (as --base-url)
  CONFORMANCE_API_KEY             primary campaign, scope walks:read (required with a base URL)
  CONFORMANCE_NO_SCOPE_KEY        primary campaign, read scopes without walks:read
  CONFORMANCE_OTHER_CAMPAIGN_KEY  a second campaign, walks:read
  CONFORMANCE_REVOKED_KEY         primary campaign, revoked
  CONFORMANCE_EMPTY_CAMPAIGN_KEY  a campaign with no walks, walks:read
  CONFORMANCE_WEB_BASE_URL        the {web_base_url} of web_url and app_link
  CONFORMANCE_STRICT=1            as --strict
  A check that needs a key that is not set is skipped and names the variable.

Results: pass, fail, skip (with the reason), advisory (what the deployment decided where the
written spec is silent) and inconclusive (the data could not show it). Failures print the
requirement, expected, actual, a hint and a curl that uses $CONFORMANCE_API_KEY etc., never a key.
Every report ends with the drift: each difference of the answers from spec/openapi.yaml once,
grouped by operation, status and place, with how many answers showed it.

Exit status: 0 every required check holds; 1 a required check failed (or an expected failure no
longer fails); 2 unusable configuration or the target could not be reached at all.
`;
