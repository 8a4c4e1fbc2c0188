/**
 * The command line of `npm run reference-server`: its flags, and what it answers without serving
 * (`--help`, `--version`, a usage mistake, `--print-credentials`, `--variant list`,
 * `--print-variant`). `main.ts` serves with the flags it returns.
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
import { type Output, PROCESS_OUTPUT } from '../command-line/output.ts';
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
import {
  VARIANT_FLAGS,
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
    spec: {
      type: 'string',
      value: 'FILE',
      help: 'Serve every live operation of this OpenAPI 3.1 spec (default: the project spec)',
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

export interface Flags extends VariantSettings {
  port: number;
  host: string;
  seed: number;
  walks: number;
  maxStops: number;
  webBaseUrl: string;
  rateLimit: number | undefined;
  /** `--spec FILE`: the spec whose live operations are served; undefined: the project's. */
  spec: string | undefined;
  quiet: boolean;
  printCredentials: boolean;
}

/** The server's settings, or `'help'` for `--help`. */
function parseFlags(argv: string[]): Flags | 'help' {
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
    spec: values.spec,
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

/** What `--print-credentials`, `--variant list` and `--print-variant` print instead of serving. */
function printOnly(flags: Flags): string | undefined {
  if (flags.printCredentials) return `${credentialLines(flags.seed, flags.webBaseUrl)}\n`;
  if (flags.listVariants) return variantList();
  if (flags.printVariant && flags.variant) return `${variantText(flags.variant)}\n`;
  return undefined;
}

/**
 * What the command does before it serves: the exit status once it has answered (help, version, a
 * usage mistake, or what it prints instead of serving), or the flags to serve with.
 */
export function commandLine(argv: string[], output: Output = PROCESS_OUTPUT): Flags | number {
  const flags = optionsOrExit(COMMAND, argv, parseFlags, output);
  if (typeof flags === 'number') return flags;
  const printed = printOnly(flags);
  if (printed === undefined) return flags;
  output.stdout(printed);
  return 0;
}
