/**
 * Configuration from the environment and the command line (flags override the environment), checked
 * once. Anything unusable is a `ConfigError`, which the CLI turns into exit status 2.
 */
import { basename, resolve } from 'node:path';
import type { CommandSpec } from '../../command-line/flags.ts';
import {
  badValue,
  choiceFlag,
  helpText,
  integerFlag,
  packagedVersion,
  readFlags,
  withEnvFile,
} from '../../command-line/flags.ts';
import { loadSpec } from '../../spec/contract.ts';
import {
  CREDENTIAL_NAMES,
  type CredentialName,
  WALKS_READ_SCOPE,
  WEB_BASE_URL_NAME,
  CREDENTIAL_KEY_NAMES,
} from '../../spec/facts.ts';
import { ConfigError } from '../core/config-error.ts';
import { durationText, parseDuration } from '../core/duration.ts';
import { THROTTLED_RETRIES } from '../transport/retry.ts';
import { EMPTY_CAMPAIGN, NO_SCOPE, OTHER, PRIMARY, REVOKED } from '../core/key-uses.ts';
import type { Verbosity } from '../reporters/console.ts';
import { REPORTER_NAMES, type ReporterName } from '../reporters/format.ts';
import { reachOf } from '../transport/reach.ts';
import { parseShard, type Shard } from '../run/shards.ts';
import { requireTargetKeys, type TargetOptions } from '../run/target.ts';
import { TOOL_NAME, VERSION } from '../core/tool.ts';
import type { KeyName, RateLimit } from '../core/configuration.ts';

export const DEFAULTS = {
  profile: 'live',
  concurrency: 8,
  timeoutMs: 10_000,
  maxRequests: 1500,
  maxResponseBytes: 8 * 1024 * 1024,
  maxRetryWaitMs: 60_000,
  retries: 3,
  maxDurationMs: 15 * 60_000,
  seed: 20261124,
} as const;

export interface CliOptions {
  /** Its `baseUrl` is missing when neither `--base-url` nor `CONFORMANCE_BASE_URL` is set. */
  config: TargetOptions;
  reporters: { name: ReporterName; output?: string }[];
  /** `--skip PREFIX`: checks left out, by id prefix (`--only` lives in the config). */
  skip?: string[];
  /** `--quiet`: the summary line and the failures; `--verbose`: every section, every example. */
  verbosity: Verbosity;
  /** `--har FILE`: the run's traffic as HAR 1.2, keys redacted. */
  har?: string;
  /** `--expect-failures FILE`: known failing requirement ids with reasons (JSON or YAML). */
  expectFailures?: string;
  /** `--compare FILE`: a previous `--reporter json` report to compare with. */
  compare?: string;
  /** `--traffic FILE.har`: judge a recording instead of a deployment (no key needed). */
  traffic?: string;
  /** `--traffic-memory SIZE`: what the cross-exchange state may cost the process (`core/state.ts`), in bytes. */
  trafficMemory?: number;
  /** `--redact-bodies`: findings name ids and field paths, never values from bodies. */
  redactBodies?: boolean;
  /** `--shard I/N`: judge shard I of N of the recording and write its result for `--merge`. */
  shard?: Shard;
  /** `--merge FILE...`: the shards' results joined into one verdict. */
  merge?: string[];
  help: boolean;
  /** `--log-requests`: one line per attempt (method, path, status, milliseconds). */
  logRequests: boolean;
  /** `--version`: the line to print, and nothing is run. */
  version?: string;
  list: boolean;
}

type Env = Record<string, string | undefined>;
type Flags = ReturnType<typeof readFlags<typeof FLAGS>>['values'];

/** Reads the command line and the environment; any mistake is a `UsageError` (exit status 2). */
export function parseCli(argv: string[], env: Env): CliOptions {
  const { values: flags, positionals } = readFlags(COMMAND, argv);
  // `--help` wins over `--version`.
  const version = flags.help ? undefined : flags.version ? versionLine() : undefined;
  if (flags.help || version !== undefined) {
    const nothingRun: CliOptions = {
      config: configOf({}, {}),
      reporters: [],
      verbosity: 'normal',
      help: !!flags.help,
      list: false,
      logRequests: false,
    };
    return version === undefined ? nothingRun : { ...nothingRun, version };
  }
  if (flags.quiet && flags.verbose)
    throw new ConfigError('--quiet and --verbose contradict each other: choose one');
  const merged = withEnvFile(flags['env-file'], env);
  const config = configOf(flags, merged);
  const traffic = trafficOf(flags);
  const merge = mergeOf(flags, positionals);
  const shard = shardOf(flags, traffic);
  // --list, --traffic and --merge send nothing, so they need no key; the target decides which keys a run needs.
  if (!flags.list && traffic === undefined && merge === undefined) {
    requireBaseUrlForKeys(config);
    requireTargetKeys(config);
  }
  const options: CliOptions = {
    config,
    reporters: shard
      ? shardReporters(shard, flags.reporter ?? [], flags.output ?? [])
      : parseReporters(flags.reporter ?? [], flags.output ?? []),
    verbosity: flags.quiet ? 'quiet' : flags.verbose ? 'verbose' : 'normal',
    help: false,
    list: !!flags.list,
    logRequests: flags['log-requests'] === true,
  };
  const skip = prefixesOf(flags.skip);
  if (skip) options.skip = skip;
  recordingOptions(options, flags, { traffic, merge, shard });
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

/** The options of judging a recording (`--traffic`, its shards, `--merge`), each refused elsewhere. */
function recordingOptions(
  options: CliOptions,
  flags: Flags,
  {
    traffic,
    merge,
    shard,
  }: { traffic: string | undefined; merge: string[] | undefined; shard: Shard | undefined },
): void {
  if (traffic !== undefined) options.traffic = traffic;
  if (shard) options.shard = shard;
  if (merge) options.merge = merge;
  // The environment's web base URL names the deployment its keys are for (the demo keys' export
  // sets it too); a recording may be of any deployment, so only --web-base-url speaks for one.
  if ((traffic !== undefined || merge !== undefined) && flags['web-base-url'] === undefined)
    delete options.config.webBaseUrl;
  const memory = sizeFlag('--traffic-memory', flags['traffic-memory']);
  if (memory !== undefined) {
    if (traffic === undefined && merge === undefined)
      throw new ConfigError('--traffic-memory applies to --traffic and --merge only');
    options.trafficMemory = memory;
  }
  if (flags['redact-bodies']) {
    if (traffic === undefined && merge === undefined)
      throw new ConfigError('--redact-bodies applies to --traffic and --merge only');
    if (shard) throw new ConfigError('--redact-bodies applies to the merged report: give it to --merge');
    options.redactBodies = true;
  }
}

/** A variable that turns a switch on: `1` or `true`. */
const isOn = (value: string | undefined) => value === '1' || value === 'true';

/** The keys the environment names, by their variable. */
function keysOf(merged: Env): Partial<Record<KeyName, string>> {
  const keys: Partial<Record<KeyName, string>> = {};
  for (const name of CREDENTIAL_KEY_NAMES) {
    const value = merged[name]?.trim();
    if (value) keys[name] = value;
  }
  return keys;
}

/** The suite's configuration: flags over the environment (and the env file beneath it). */
function configOf(flags: Flags, merged: Env): CliOptions['config'] {
  const config: CliOptions['config'] = {
    profile: choiceFlag('--profile', flags.profile ?? merged.CONFORMANCE_PROFILE ?? DEFAULTS.profile, [
      'live',
      'mock',
    ] as const),
    strict: flags.strict === true || isOn(merged.CONFORMANCE_STRICT),
    keys: keysOf(merged),
    concurrency: integerFlag('--concurrency', flags.concurrency, LIMITS.concurrency, DEFAULTS.concurrency),
    timeoutMs: integerFlag('--timeout', flags.timeout, LIMITS.timeoutMs, DEFAULTS.timeoutMs),
    maxRequests: integerFlag(
      '--max-requests',
      flags['max-requests'],
      LIMITS.maxRequests,
      DEFAULTS.maxRequests,
    ),
    maxResponseBytes: integerFlag(
      '--max-response-bytes',
      flags['max-response-bytes'],
      LIMITS.maxResponseBytes,
      DEFAULTS.maxResponseBytes,
    ),
    maxRetryWaitMs: integerFlag(
      '--max-retry-wait',
      flags['max-retry-wait'],
      LIMITS.maxRetryWaitMs,
      DEFAULTS.maxRetryWaitMs,
    ),
    retries: integerFlag('--retries', flags.retries, LIMITS.retries, DEFAULTS.retries),
    maxDurationMs: maxDurationOf(
      flags['max-duration'] ?? (merged[MAX_DURATION_VARIABLE]?.trim() || undefined),
    ),
    seed: integerFlag('--seed', flags.seed, LIMITS.seed, DEFAULTS.seed),
  };
  if (flags['rate-limit'] !== undefined) config.rateLimit = rateLimitOf(flags['rate-limit']);
  if (flags['allow-destructive'] === true || isOn(merged.CONFORMANCE_ALLOW_DESTRUCTIVE))
    config.allowDestructive = true;
  if (flags.depth !== undefined) {
    config.depth = choiceFlag('--depth', flags.depth, ['default', 'full'] as const);
    // The whole catalogue is thousands of requests: unless a budget is given, the plan is the budget.
    if (config.depth === 'full' && flags['max-requests'] === undefined)
      config.maxRequests = LIMITS.maxRequests.max;
  }
  const baseUrl = flags['base-url'] ?? (merged[BASE_URL_VARIABLE]?.trim() || undefined);
  if (baseUrl !== undefined) config.baseUrl = normalizeBaseUrl(baseUrl, `--base-url / ${BASE_URL_VARIABLE}`);
  const webBaseUrl = flags['web-base-url'] ?? (merged[WEB_BASE_URL_NAME]?.trim() || undefined);
  if (webBaseUrl !== undefined) config.webBaseUrl = normalizeBaseUrl(webBaseUrl, WEB_BASE_URL_NAME);
  if (flags.sample !== undefined) config.sample = integerFlag('--sample', flags.sample, LIMITS.sample, 0);
  if (flags.spec !== undefined) {
    if (flags.spec.trim() === '') throw new ConfigError('--spec needs an OpenAPI file');
    config.specPath = resolve(flags.spec);
  }
  const only = prefixesOf(flags.only);
  if (only) config.only = only;
  config.reach = reachOf(flags, merged);
  return config;
}

/**
 * Fail closed: a key with no base URL is a deployment meant but not named (a CI variable unset or
 * misspelt), never a wish for the embedded reference server, which runs only when nothing points
 * at a deployment.
 */
function requireBaseUrlForKeys(config: CliOptions['config']): void {
  if (config.baseUrl !== undefined) return;
  const key = CREDENTIAL_KEY_NAMES.find((name) => config.keys[name] !== undefined);
  if (key === undefined) return;
  throw new ConfigError(
    `${key} is set but ${BASE_URL_VARIABLE} is empty or missing: name the deployment with --base-url URL or ${BASE_URL_VARIABLE} (the embedded reference server runs only when no key is set either)`,
  );
}

/** The variable `--base-url` falls back to. */
const BASE_URL_VARIABLE = 'CONFORMANCE_BASE_URL';

/** The variable `--max-duration` falls back to. */
const MAX_DURATION_VARIABLE = 'CONFORMANCE_MAX_DURATION';

/** `--max-duration 15m`: the longest a run may take (`core/duration.ts`), one second to a day. */
function maxDurationOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULTS.maxDurationMs;
  const ms = parseDuration(raw);
  if (ms === undefined || ms < LIMITS.maxDurationMs.min || ms > LIMITS.maxDurationMs.max) {
    throw badValue('--max-duration', 'a duration from 1s to 24h with its unit, such as 90s, 15m or 1h', raw);
  }
  return ms;
}

/** `--rate-limit 20/s` or `600/min`: request starts allowed per second or per minute. */
function rateLimitOf(raw: string): RateLimit {
  const match = /^([0-9]+)\/(s|min)$/.exec(raw.trim());
  const requests = Number(match?.[1]);
  const perMs = match?.[2] === 'min' ? 60_000 : 1_000;
  const max = perMs === 1_000 ? LIMITS.ratePerSecond : LIMITS.ratePerSecond * 60;
  if (!match || !(requests >= 1 && requests <= max)) {
    throw badValue(
      '--rate-limit',
      `a rate from 1/s to ${LIMITS.ratePerSecond}/s or 1/min to ${max}/min`,
      raw,
    );
  }
  return { requests, perMs };
}

/** `--only A,B --only C` → `['A', 'B', 'C']`, upper case as the check ids are. */
function prefixesOf(values: string[] | undefined): string[] | undefined {
  const prefixes = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim().toUpperCase());
  const given = prefixes.filter(Boolean);
  if (values !== undefined && given.length === 0)
    throw new ConfigError('--only and --skip need a check id prefix');
  return given.length > 0 ? given : undefined;
}

function normalizeBaseUrl(raw: string, name: string): string {
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
    const reporter = choiceFlag('--reporter', name, REPORTER_NAMES);
    if (reporter === 'console') continue;
    if (chosen.some((r) => r.name === reporter)) continue;
    const output = files.shift() ?? `reports/conformance.${DEFAULT_EXTENSION[reporter]}`;
    chosen.push({ name: reporter, output });
  }
  if (files.length > 0) {
    throw new ConfigError(
      '--output given without a file reporter for it: add --reporter junit, json or html',
    );
  }
  return chosen;
}

// --traffic: judging a recording instead of a deployment.
const TRAFFIC_FLAGS = {
  traffic: {
    type: 'string',
    value: 'FILE.har',
    help: 'Judge every recorded exchange of this API instead of calling a deployment: a HAR file,\n.har.gz, NDJSON of HAR entries (gzip or not), a Playwright zip, or - for standard input;\nno key needed; --base-url picks the API when the file holds several',
  },
  'traffic-memory': {
    type: 'string',
    value: 'SIZE',
    help: "Memory the cross-exchange state of --traffic may cost the process, the garbage\ncollector's room included: records live in memory up to 30% of it, then spill to disk;\nthe run sets V8's --heap-growing-percent=50 unless NODE_OPTIONS sets it (default 256MB;\ne.g. 64MB, 1GB)",
  },
  'redact-bodies': {
    type: 'boolean',
    help: 'Keep values read from answer bodies out of every finding and report: ids and field\npaths only',
  },
  shard: {
    type: 'string',
    value: 'I/N',
    help: 'With --traffic: judge shard I of N of the recording (1 <= I <= N) and write its part of\nthe verdict as JSON (--output, default reports/conformance.shard-I-of-N.json) for --merge',
  },
  merge: {
    type: 'string',
    multiple: true,
    value: 'RESULT.json...',
    help: 'Join the JSON results of every --shard I/N of one recording into one verdict and its\nreports, as judging the whole recording gives',
  },
} as const satisfies CommandSpec['flags'];

/** `--shard I/N`: with --traffic only. */
function shardOf(flags: Flags, traffic: string | undefined): Shard | undefined {
  if (flags.shard === undefined) return undefined;
  if (traffic === undefined) throw new ConfigError('--shard applies to --traffic only');
  return parseShard(flags.shard);
}

/**
 * A shard writes its part of the verdict as JSON (`--reporter json`'s output, or a file named for
 * the shard); the reports are the merged run's.
 */
function shardReporters(shard: Shard, names: string[], outputs: string[]): CliOptions['reporters'] {
  const other = names.flatMap((n) => n.split(',')).find((n) => n.trim() !== 'json' && n.trim() !== 'console');
  if (other !== undefined)
    throw new ConfigError(
      `--shard writes its part of the verdict as JSON for --merge: --reporter ${other.trim()} is the merged run's`,
    );
  if (outputs.length > 1) throw new ConfigError('--shard writes one file: give --output once');
  const output = outputs[0] ?? `reports/conformance.shard-${shard.index}-of-${shard.of}.json`;
  return [{ name: 'console' }, { name: 'json', output }];
}

/** `--merge A.json B.json ...` (a shell glob gives the rest as arguments): the shards' results. */
function mergeOf(flags: Flags, positionals: string[]): string[] | undefined {
  if (flags.merge === undefined) {
    if (positionals.length > 0)
      throw new ConfigError(
        `unexpected argument ${JSON.stringify(positionals[0])}: only --merge takes files without a flag`,
      );
    return undefined;
  }
  if (flags.traffic !== undefined)
    throw new ConfigError('--merge joins the results of --shard runs: leave out --traffic');
  if (flags.shard !== undefined)
    throw new ConfigError('--merge joins the results of --shard runs: leave out --shard');
  if (flags['base-url'] !== undefined)
    throw new ConfigError('--merge takes the base URL the shards judged: leave out --base-url');
  const files = [...flags.merge, ...positionals];
  if (files.some((file) => file.trim() === ''))
    throw new ConfigError("--merge needs the shards' result files");
  return files;
}

/** Units of `--traffic-memory`. */
const SIZE_UNITS: Record<string, number> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** `256MB`, `1GB`, `65536`: a size in bytes, at least 1 MB. */
function sizeFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*$/i.exec(value);
  const unit = SIZE_UNITS[match?.[2]?.toUpperCase() ?? 'none'];
  if (!match || unit === undefined)
    throw new ConfigError(`${flag} must be a size such as 256MB or 1GB, not ${JSON.stringify(value)}`);
  const bytes = Math.round(Number(match[1]) * unit);
  if (bytes < 1024 * 1024) throw new ConfigError(`${flag} must be at least 1MB, not ${value}`);
  return bytes;
}

/** `--traffic FILE`: the recording to judge; it sends nothing, so `--har` has nothing to record. */
function trafficOf(flags: Flags): string | undefined {
  const file = flags.traffic;
  if (file === undefined) return undefined;
  if (file.trim() === '') throw new ConfigError('--traffic needs a HAR file');
  if (flags.har !== undefined)
    throw new ConfigError('--traffic judges a recording and sends nothing: --har has nothing to record');
  if (flags.profile === 'mock')
    throw new ConfigError('--traffic judges recorded answers: --profile mock does not apply');
  return file;
}

/** Bounds of the numeric flags. */
const LIMITS = {
  concurrency: { min: 1, max: 64 },
  timeoutMs: { min: 100, max: 600_000 },
  maxRequests: { min: 1, max: 100_000 },
  maxResponseBytes: { min: 1024, max: 1024 ** 3 },
  maxRetryWaitMs: { min: 0, max: 120_000 },
  retries: { min: 0, max: 10 },
  maxDurationMs: { min: 1_000, max: 24 * 3_600_000 },
  ratePerSecond: 10_000,
  seed: { min: 0, max: 2 ** 31 - 1 },
  sample: { min: 1, max: 1_000_000 },
} as const;

/** Reaching a staging deployment as QA's CI does (`reach.ts`): kept together for merges. */
const REACH_FLAGS = {
  proxy: {
    type: 'string',
    value: 'URL',
    help: 'Forward proxy, http://[user:password@]host:port (env CONFORMANCE_PROXY);\nwithout it HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured, either case, as curl does',
  },
  'ca-file': {
    type: 'string',
    value: 'FILE',
    help: "PEM certificate(s) added to the trusted roots, e.g. a private CA's\n(NODE_EXTRA_CA_CERTS works too)",
  },
  insecure: {
    type: 'boolean',
    help: "Do not verify the target's TLS certificate (every report and the console say so)",
  },
  cert: { type: 'string', value: 'FILE', help: 'Client certificate (PEM) for mutual TLS; with --key' },
  key: { type: 'string', value: 'FILE', help: 'Private key (PEM) of --cert' },
  'key-passphrase-env': {
    type: 'string',
    value: 'NAME',
    help: 'The environment variable holding the passphrase of an encrypted --key',
  },
  header: {
    type: 'string',
    multiple: true,
    value: "'NAME: VALUE'",
    help: "Sent on every request, e.g. a gateway's token (repeatable; env CONFORMANCE_HEADERS,\none per line, or CONFORMANCE_HEADER_<NAME>). 'X-Token: $TOKEN' (quoted so the shell\nleaves it) reads TOKEN here; reproductions show $TOKEN, or $CONFORMANCE_HEADER_<NAME>\nfor a value given as it is, never the value",
  },
} as const satisfies CommandSpec['flags'];

const FLAGS = {
  'base-url': {
    type: 'string',
    value: 'URL',
    help: 'Deployment to check (env CONFORMANCE_BASE_URL), e.g. https://staging.example;\nwithout /api/v1 (a gateway path prefix such as https://host/gw/canvassing is fine)',
  },
  profile: {
    type: 'string',
    value: 'live|mock',
    help: 'live (default): real data and keys. mock: a Prism mock of spec/openapi.yaml\n(checks needing real data or keys are skipped; others use Prefer headers)',
  },
  strict: {
    type: 'boolean',
    help: 'Drift is failure: undocumented fields, statuses and content types\n(env CONFORMANCE_STRICT=1)',
  },
  concurrency: {
    type: 'string',
    value: 'N',
    help: `Requests in flight at once (default ${DEFAULTS.concurrency})`,
  },
  timeout: {
    type: 'string',
    value: 'MS',
    help: `Longest wait for one attempt, every leg within it: connect, a proxy's CONNECT,\nTLS, headers and body (default ${DEFAULTS.timeoutMs}; ${LIMITS.timeoutMs.min} to ${LIMITS.timeoutMs.max})`,
  },
  'max-requests': {
    type: 'string',
    value: 'N',
    help: `Total request budget of the run (default ${DEFAULTS.maxRequests})`,
  },
  'max-response-bytes': {
    type: 'string',
    value: 'N',
    help: `Larger answers are cut off and not judged: exit 2 unless a required check failed (default ${DEFAULTS.maxResponseBytes})`,
  },
  'max-retry-wait': {
    type: 'string',
    value: 'MS',
    help: `Longest Retry-After honoured on a 429 or 503 before a retry; a longer one's answer\nstands (default ${DEFAULTS.maxRetryWaitMs}: a per-minute limit asks for up to a minute)`,
  },
  'max-duration': {
    type: 'string',
    value: 'DURATION',
    help: `Longest the whole run may take, e.g. 90s, 15m, 1h (default ${durationText(DEFAULTS.maxDurationMs)};\nenv ${MAX_DURATION_VARIABLE}); past it nothing more is sent, the run ends with exit 2\nand names what was still waiting`,
  },
  retries: {
    type: 'string',
    value: 'N',
    help: `Times a failed request is tried again (default ${DEFAULTS.retries}): a 503 or a reset with no\nanswer, on GET and HEAD only. A throttled answer (a 429, a 503 with Retry-After) is\nwaited out and asked again up to ${THROTTLED_RETRIES} times (none with --retries 0). Every attempt\ncounts in the budget and appears in the HAR, the JSON report and the coverage`,
  },
  'rate-limit': {
    type: 'string',
    value: 'N/s|N/min',
    help: "Request starts allowed in any sliding second (N/s) or minute (N/min), never more;\nwithout it the run learns a per-key limit per second and per minute from the\ntarget's 429s (refusals that cluster at one count) and keeps a tenth below it",
  },
  sample: {
    type: 'string',
    value: 'N',
    help: 'Judge N records per sweep, chosen by the seed, for very large or slow targets\n(default: every record; the summary says "sampled N of M")',
  },
  depth: {
    type: 'string',
    value: 'default|full',
    help: `full: the whole attacker's catalogue (path spellings, forwarding and rewrite headers,
methods, host headers, two keys, caches) on every refusal of every protected route; says
how many requests that is before it starts, and spends them unless --max-requests is given`,
  },
  'allow-destructive': {
    type: 'boolean',
    help: `Also send a DELETE to an item that exists (the writes on real items): without it
no DELETE ever goes to a real item; a deployment that accepts one loses that item
(env CONFORMANCE_ALLOW_DESTRUCTIVE=1)`,
  },
  seed: {
    type: 'string',
    value: 'S',
    help: `Seed of every random choice: limit values, samples (default ${DEFAULTS.seed};\nprinted in every report, so a failure reproduces)`,
  },
  'web-base-url': {
    type: 'string',
    value: 'URL',
    help: `Expected {web_base_url} of web_url/app_link (env ${WEB_BASE_URL_NAME};\na recording is held to the flag's alone)`,
  },
  'env-file': {
    type: 'string',
    value: 'FILE',
    help: 'Read CONFORMANCE_* variables from a dotenv file (the environment wins);\nthe command reads it itself, so node --env-file is not needed',
  },
  reporter: {
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: 'junit, json or html, in addition to the console (repeatable or a comma list);\nhtml is one self-contained page QA can attach to a build',
  },
  output: {
    type: 'string',
    multiple: true,
    value: 'FILE',
    help: 'File of the file reporter(s), in the order given (default reports/conformance.*)',
  },
  har: {
    type: 'string',
    value: 'FILE',
    help: `Record the run's traffic as HAR 1.2; keys appear as $${PRIMARY.key} etc.`,
  },
  'expect-failures': {
    type: 'string',
    value: 'FILE',
    help: 'Known failing requirement ids, JSON or YAML: [{ id, reason }, ...]. They are\nreported but do not fail the run; a listed check that passes fails the run\n(remove its entry); an unknown id is unusable configuration (exit 2)',
  },
  compare: {
    type: 'string',
    value: 'FILE',
    help: 'A previous --reporter json report: prints and reports what changed since\n(newly failing, newly passing, new advisories, new and gone drift)',
  },
  spec: {
    type: 'string',
    value: 'FILE',
    help: 'Judge against this OpenAPI document instead of the bundled spec/openapi.yaml\n(e.g. the next version); reports record its path, info.version and hash',
  },
  only: {
    type: 'string',
    multiple: true,
    value: 'PREFIX',
    help: 'Run only checks whose id starts with PREFIX (repeatable), e.g. --only AUTH',
  },
  skip: {
    type: 'string',
    multiple: true,
    value: 'PREFIX',
    help: 'Leave out checks whose id starts with PREFIX (repeatable), e.g. --skip DRIFT;\na prefix of --only or --skip that matches no check is unusable (exit 2)',
  },
  ...REACH_FLAGS,
  quiet: { type: 'boolean', help: 'Print only the summary line and the failures' },
  verbose: {
    type: 'boolean',
    help: 'Print every section: advisories, skips, every example, the pre-flight figures',
  },
  list: { type: 'boolean', help: 'Print the checks (id, level, section, title) and exit' },
  'log-requests': {
    type: 'boolean',
    help: 'Print one line per request as it ends: method, path, status, milliseconds (never a\nkey or header value). On a terminal a live line shows requests, rate and time',
  },
  ...TRAFFIC_FLAGS,
} as const satisfies CommandSpec['flags'];

/** What each credential variable holds; the names are the contract's (`spec/facts.ts`). */
const CREDENTIAL_HELP: Record<CredentialName, string> = {
  [PRIMARY.key]: `primary campaign, scope ${WALKS_READ_SCOPE} (required with a base URL)`,
  [NO_SCOPE.key]: `primary campaign, read scopes without ${WALKS_READ_SCOPE}`,
  [OTHER.key]: `a second campaign, ${WALKS_READ_SCOPE}`,
  [REVOKED.key]: 'primary campaign, revoked',
  [EMPTY_CAMPAIGN.key]: `a campaign with no walks, ${WALKS_READ_SCOPE}`,
  [WEB_BASE_URL_NAME]: 'the {web_base_url} of web_url and app_link',
};

/** The Environment section of `--help`: the suite's own variables around the contract's. */
function environmentText(): string {
  const rows: [string, string][] = [
    ['CONFORMANCE_BASE_URL', 'base URL (as --base-url)'],
    ...CREDENTIAL_NAMES.map((name): [string, string] => [name, CREDENTIAL_HELP[name]]),
    ['CONFORMANCE_STRICT=1', 'as --strict'],
    [MAX_DURATION_VARIABLE, 'as --max-duration'],
    ['CONFORMANCE_ALLOW_DESTRUCTIVE=1', 'as --allow-destructive'],
    ['CONFORMANCE_PROXY', 'as --proxy'],
    ['CONFORMANCE_PROXY_PASSWORD', "the password of the proxy's user, when its URL has none"],
    ['HTTPS_PROXY, HTTP_PROXY', 'the proxy of an https or http target (either case, as curl)'],
    ['NO_PROXY', 'hosts reached without a proxy (either case, as curl)'],
    ['CONFORMANCE_HEADERS', "headers as --header, one 'Name: value' per line"],
    ['CONFORMANCE_HEADER_<NAME>', 'one header each (CONFORMANCE_HEADER_X_GATEWAY_TOKEN: X-Gateway-Token)'],
    ['CONFORMANCE_CA_FILE', 'as --ca-file; reproductions then name the variable'],
    ['CONFORMANCE_CERT_FILE', 'as --cert; reproductions then name the variable'],
    ['CONFORMANCE_KEY_FILE', 'as --key; reproductions then name the variable'],
    ['NO_COLOR', 'no colour (colour is used only on a terminal anyway)'],
  ];
  const lines = rows.map(([name, text]) => `  ${name.padEnd(32)}${text}`);
  return [...lines, '  A check that needs a key that is not set is skipped and names the variable.'].join(
    '\n',
  );
}

/** How the repository runs the suite (`package.json`), when no packaged bin does. */
const NPM_SCRIPT = 'npm run conformance --';

const COMMAND: CommandSpec<typeof FLAGS> = {
  name: 'conformance',
  usage: `${NPM_SCRIPT} [options]`,
  positionals: 'RESULT.json (after --merge)',
  // The packaged bin and `npm run conformance` answer alike (`versionLine`).
  version: `${TOOL_NAME} ${VERSION}`,
  summary: `Checks a deployment of the Campaign Canvassing Read API against the written specification and
spec/openapi.yaml. With no base URL at all it starts the reference server in-process on a free
port, with its demo credentials, and checks that.

Before any check, a pre-flight asks the list route once and stops (exit 2) with one or two lines
when the run could not judge the deployment: the target cannot be reached or never answers, the
key is rejected, the base URL already holds /api/v1, or the answer is not JSON; and when the way
there needs setting up (naming the flag that fixes it): an untrusted, expired or wrong-host
certificate, a client certificate wanted, a proxy that cannot be reached or refuses, a 401/403
from something in front of the API, or a 404 on the list route.`,
  flags: FLAGS,
  sections: [
    {
      title: 'Environment',
      text: environmentText(),
    },
    {
      title: 'Results',
      text: `  pass, fail, skip (with the reason), advisory (what the deployment decided where the written
  spec is silent) and inconclusive (the data could not show it). Failures print the requirement,
  expected, actual, a hint and a curl that uses $${PRIMARY.key} etc., never a key. The run
  ends with the path of every report it wrote.`,
    },
    {
      title: 'Exit status',
      text: `  0 every required check holds; 1 a required check failed on a target that was reached and
  accepted the key (or an expected failure no longer fails); 2 the run could not judge the
  deployment: unusable configuration, a target that cannot be reached or never answers, a
  rejected key, a base URL holding /api/v1, a list route that does not answer JSON or answers
  404, or the way there not set up (certificate, client certificate, proxy, gateway header).
  Reports then say "not judged", with the reason.
  With --traffic: 0 every judged exchange holds, 1 one does not, 2 the file is not HAR, holds no
  exchange of this API, or holds several API base URLs and no --base-url says which.
  With --shard: 0 its result is written (the verdict is --merge's); 2 as --traffic.
  With --merge: as --traffic, and 2 for results of another spec, other rules or settings, another
  recording, a shard missing or given twice, or a file that is no shard's result.`,
    },
  ],
};

/**
 * `--version`: `canvassing-conformance 1.0.0-beta (Campaign Canvassing Read API 1.0.0-beta)`. The
 * packaged bin reads the API beside its bundle (`packagedVersion`); the repository reads it from the
 * spec, only when asked. The tool's version is the API's (`conformance/test/version.test.ts`).
 */
function versionLine(): string {
  const packaged = packagedVersion(TOOL_NAME);
  if (packaged !== undefined) return packaged;
  const { info } = loadSpec();
  return `${TOOL_NAME} ${VERSION} (${info.title} ${info.version})`;
}

/**
 * The command a person ran, for the usage line: the packaged bin's own name when that is what ran
 * (`canvassing-conformance`, or its `.mjs`), else the repository's npm script.
 */
export function programOf(script: string | undefined): string {
  const name = basename(script ?? '').replace(/\.m?js$/, '');
  return name === TOOL_NAME ? TOOL_NAME : NPM_SCRIPT;
}

/** `--help`, its usage line naming the command as it was run. */
export function helpFor(program: string = NPM_SCRIPT): string {
  return helpText({ ...COMMAND, usage: `${program} [options]` });
}
