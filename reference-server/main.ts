/**
 * `npm run reference-server -- [flags]`: the only place that reads the command line and listens
 * on a fixed port. See `--help`, and `../shared/CONTRACT.md` for the commands it must keep.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_STOPS, DEFAULT_SEED, DEFAULT_WALKS, demoCredentials } from '../fixtures/index.ts';
import { DEFAULT_WEB_BASE_URL, normalizeWebBaseUrl } from './web-base-url.ts';
import { jsonLines, logRecord } from './log.ts';
import type { RunningServer } from './start.ts';
import {
  VARIANT_FLAG_OPTIONS,
  VARIANT_USAGE,
  variantBanner,
  variantList,
  type VariantSettings,
  variantSettings,
  variantText,
} from './variant-flags.ts';

const USAGE = `Usage: npm run reference-server -- [options]

Serves the Canvassing Read API on a seeded demo data set.

Options:
  --port N               port to listen on (default 8080; 0 picks a free port)
  --host H               address to listen on (default 127.0.0.1)
  --seed S               data set seed (default ${DEFAULT_SEED})
  --walks N              active walks of the primary campaign (default ${DEFAULT_WALKS})
  --max-stops N          stops of the largest walk (default ${DEFAULT_MAX_STOPS})
  --web-base-url URL     {web_base_url} of web_url and app_link (default ${DEFAULT_WEB_BASE_URL})
  --rate-limit N/min     per-key rate limit, answered with 429 and Retry-After (default: off)
${VARIANT_USAGE}
  --quiet                no request log lines
  --print-credentials    print the demo credentials of the seed as dotenv lines and exit
  --help                 show this help and exit

Logs are JSON lines on stdout. SIGINT or SIGTERM stops the server after open requests finish.
`;

interface Flags extends VariantSettings {
  port: number;
  host: string;
  seed: number;
  walks: number;
  maxStops: number;
  webBaseUrl: string;
  rateLimit: number | undefined;
  quiet: boolean;
  printCredentials: boolean;
  help: boolean;
}

export function parseFlags(argv: string[]): Flags {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      walks: { type: 'string' },
      'max-stops': { type: 'string' },
      'web-base-url': { type: 'string' },
      'rate-limit': { type: 'string' },
      quiet: { type: 'boolean' },
      'print-credentials': { type: 'boolean' },
      help: { type: 'boolean' },
      ...VARIANT_FLAG_OPTIONS,
    },
  });
  return {
    ...variantSettings(values),
    port: integerFlag('--port', values.port, 8080, 0, 65535),
    host: values.host ?? '127.0.0.1',
    seed: integerFlag('--seed', values.seed, DEFAULT_SEED, 0, 2 ** 32 - 1),
    walks: integerFlag('--walks', values.walks, DEFAULT_WALKS, 0, 2_000_000),
    maxStops: integerFlag('--max-stops', values['max-stops'], DEFAULT_MAX_STOPS, 0, 100_000),
    webBaseUrl: normalizeWebBaseUrl(values['web-base-url'] ?? DEFAULT_WEB_BASE_URL),
    rateLimit: values['rate-limit'] === undefined ? undefined : rateFlag(values['rate-limit']),
    quiet: values.quiet ?? false,
    printCredentials: values['print-credentials'] ?? false,
    help: values.help ?? false,
  };
}

function integerFlag(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max))
    throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

function rateFlag(raw: string): number {
  const match = /^([0-9]+)(?:\/min)?$/.exec(raw);
  const value = match ? Number(match[1]) : 0;
  if (!(value >= 1 && value <= 1_000_000)) throw new RangeError('--rate-limit must look like 600/min');
  return value;
}

function credentialLines(seed: number, webBaseUrl: string): string {
  const keys = demoCredentials({ seed });
  return [
    `CONFORMANCE_API_KEY=${keys.CONFORMANCE_API_KEY}`,
    `CONFORMANCE_NO_SCOPE_KEY=${keys.CONFORMANCE_NO_SCOPE_KEY}`,
    `CONFORMANCE_OTHER_CAMPAIGN_KEY=${keys.CONFORMANCE_OTHER_CAMPAIGN_KEY}`,
    `CONFORMANCE_REVOKED_KEY=${keys.CONFORMANCE_REVOKED_KEY}`,
    `CONFORMANCE_EMPTY_CAMPAIGN_KEY=${keys.CONFORMANCE_EMPTY_CAMPAIGN_KEY}`,
    `CONFORMANCE_WEB_BASE_URL=${webBaseUrl}`,
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    process.stderr.write(`reference-server: ${(error as Error).message}\nTry --help.\n`);
    process.exitCode = 2;
    return;
  }
  const printed = printOnly(flags);
  if (printed !== undefined) return void process.stdout.write(printed);

  const log = jsonLines(process.stdout);
  const startedAt = performance.now();
  let running: RunningServer;
  try {
    running = await start(flags, log);
  } catch (error) {
    process.stderr.write(`reference-server: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  log(
    logRecord('info', 'listening', {
      url: running.baseUrl,
      seed: flags.seed,
      walks: flags.walks,
      max_stops: flags.maxStops,
      web_base_url: flags.webBaseUrl,
      ...(flags.variant || flags.turbulence ? { serving: variantBanner(flags) } : {}),
      startup_ms: Math.round(performance.now() - startedAt),
    }),
  );
  stopOnSignals(running, log);
}

/** What `--help`, `--print-credentials`, `--variant list` and `--print-variant` print instead of serving. */
function printOnly(flags: Flags): string | undefined {
  if (flags.help) return USAGE;
  if (flags.printCredentials) return `${credentialLines(flags.seed, flags.webBaseUrl)}\n`;
  if (flags.listVariants) return variantList();
  if (flags.printVariant && flags.variant) return `${variantText(flags.variant)}\n`;
  return undefined;
}

async function start(flags: Flags, log: (record: object) => void): Promise<RunningServer> {
  // Loaded here so that printing alone needs neither Express nor a data set.
  const { startReferenceServer } = await import('./start.ts');
  return startReferenceServer({
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    walks: flags.walks,
    maxStops: flags.maxStops,
    webBaseUrl: flags.webBaseUrl,
    log: flags.quiet ? false : log,
    ...(flags.rateLimit ? { rateLimit: { requestsPerMinute: flags.rateLimit } } : {}),
    ...(flags.variant ? { variant: flags.variant } : {}),
    ...(flags.turbulence ? { turbulence: flags.turbulence } : {}),
  });
}

/** SIGINT or SIGTERM: stop after open requests finish, once. */
function stopOnSignals(running: RunningServer, log: (record: object) => void): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(logRecord('info', 'shutting down', { signal }));
    running.close().then(
      () => {
        log(logRecord('info', 'stopped'));
        process.exit(0);
      },
      (error: Error) => {
        log(logRecord('error', 'shutdown failed', { error: error.message }));
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main(process.argv.slice(2));
