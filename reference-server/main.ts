/**
 * `npm run reference-server -- [flags]`: the only place that reads the command line and listens
 * on a fixed port. See `--help`, and `../shared/CONTRACT.md` for the commands it must keep.
 */
import type { CommandSpec } from '../command-line/flags.ts';
import {
  integerFlag,
  optionsOrExit,
  packagedVersion,
  PORT_HELP,
  portFlag,
  rateLimitFlag,
  readFlags,
  SEED_BOUNDS,
} from '../command-line/flags.ts';
import { onStopSignal } from '../command-line/signals.ts';
import {
  DEFAULT_MAX_STOPS,
  DEFAULT_SEED,
  DEFAULT_WALKS,
  demoCredentials,
  MAX_STOPS_LIMIT,
  MAX_WALKS,
} from '../fixtures/index.ts';
import { CREDENTIAL_KEY_NAMES, WEB_BASE_URL_NAME } from '../spec/facts.ts';
import { DEFAULT_WEB_BASE_URL, normalizeWebBaseUrl } from './web-base-url.ts';
import type { Logger } from 'pino';
import { createLogger } from './log.ts';
import type { RunningServer } from './start.ts';
import {
  VARIANT_FLAGS,
  variantBanner,
  variantList,
  type VariantSettings,
  variantSettings,
  variantText,
} from './variant-flags.ts';

const COMMAND = {
  name: 'reference-server',
  usage: 'npm run reference-server -- [options]',
  summary: 'Serves the Canvassing Read API on a seeded demo data set.',
  flags: {
    port: { type: 'string', value: 'N', help: `Port to listen on (default 8080; ${PORT_HELP})` },
    host: { type: 'string', value: 'H', help: 'Address to listen on (default 127.0.0.1)' },
    seed: { type: 'string', value: 'S', help: `Data set seed (default ${DEFAULT_SEED})` },
    walks: {
      type: 'string',
      value: 'N',
      help: `Active walks of the primary campaign (default ${DEFAULT_WALKS})`,
    },
    'max-stops': {
      type: 'string',
      value: 'N',
      help: `Stops of the largest walk (default ${DEFAULT_MAX_STOPS})`,
    },
    'web-base-url': {
      type: 'string',
      value: 'URL',
      help: `{web_base_url} of web_url and app_link (default ${DEFAULT_WEB_BASE_URL})`,
    },
    'rate-limit': {
      type: 'string',
      value: 'N/min',
      help: 'Per-key rate limit, answered with 429 and Retry-After (default: off)',
    },
    ...VARIANT_FLAGS,
    quiet: { type: 'boolean', help: 'No request log lines' },
    'print-credentials': {
      type: 'boolean',
      help: 'Print the demo credentials of the seed as dotenv lines and exit',
    },
  },
  sections: [
    {
      title: 'Logs',
      text: '  JSON lines on stdout. SIGINT or SIGTERM stops the server after open requests finish.',
    },
  ],
  version: packagedVersion('canvassing-reference-server'),
} as const satisfies CommandSpec;

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
}

/** The server's settings, or `'help'` for `--help`. */
export function parseFlags(argv: string[]): Flags | 'help' {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  return {
    ...variantSettings(values),
    port: portFlag('--port', values.port, 8080),
    host: values.host ?? '127.0.0.1',
    seed: integerFlag('--seed', values.seed, SEED_BOUNDS, DEFAULT_SEED),
    walks: integerFlag('--walks', values.walks, { min: 0, max: MAX_WALKS }, DEFAULT_WALKS),
    maxStops: integerFlag(
      '--max-stops',
      values['max-stops'],
      { min: 0, max: MAX_STOPS_LIMIT },
      DEFAULT_MAX_STOPS,
    ),
    webBaseUrl: normalizeWebBaseUrl(values['web-base-url'] ?? DEFAULT_WEB_BASE_URL),
    rateLimit:
      values['rate-limit'] === undefined ? undefined : rateLimitFlag('--rate-limit', values['rate-limit']),
    quiet: values.quiet ?? false,
    printCredentials: values['print-credentials'] ?? false,
  };
}

/** The six variables of the contract, in its order, as dotenv lines. */
function credentialLines(seed: number, webBaseUrl: string): string {
  const keys = demoCredentials({ seed });
  return [
    ...CREDENTIAL_KEY_NAMES.map((name) => `${name}=${keys[name]}`),
    `${WEB_BASE_URL_NAME}=${webBaseUrl}`,
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const flags = optionsOrExit(COMMAND, argv, parseFlags);
  if (typeof flags === 'number') {
    process.exitCode = flags;
    return;
  }
  const printed = printOnly(flags);
  if (printed !== undefined) return void process.stdout.write(printed);

  const log = createLogger();
  const startedAt = performance.now();
  let running: RunningServer;
  try {
    running = await start(flags, log);
  } catch (error) {
    process.stderr.write(`reference-server: cannot start: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  log.info(
    {
      url: running.baseUrl,
      seed: flags.seed,
      walks: flags.walks,
      max_stops: flags.maxStops,
      web_base_url: flags.webBaseUrl,
      ...(flags.variant || flags.turbulence || flags.clock ? { serving: variantBanner(flags) } : {}),
      startup_ms: Math.round(performance.now() - startedAt),
    },
    'listening',
  );
  stopOnSignals(running, log);
}

/** What `--print-credentials`, `--variant list` and `--print-variant` print instead of serving. */
function printOnly(flags: Flags): string | undefined {
  if (flags.printCredentials) return `${credentialLines(flags.seed, flags.webBaseUrl)}\n`;
  if (flags.listVariants) return variantList();
  if (flags.printVariant && flags.variant) return `${variantText(flags.variant)}\n`;
  return undefined;
}

async function start(flags: Flags, log: Logger): Promise<RunningServer> {
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
    ...(flags.clock ? { clock: flags.clock } : {}),
  });
}

/** SIGINT or SIGTERM: stop after open requests finish, once. */
function stopOnSignals(running: RunningServer, log: Logger): void {
  onStopSignal((signal) => {
    log.info({ signal }, 'shutting down');
    running.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: Error) => {
        log.error({ error: error.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

await main(process.argv.slice(2));
