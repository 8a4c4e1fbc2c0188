/**
 * `npm start [-- --port N] [--mock-port N] [--host H] [--seed S] [--rate-limit N/min] [--variant SEED]
 * [--latency MS] [--faults RATE] [--clock [--clock-rate N]]`: the partners' sandbox. The reference server (real seeded data, real keys,
 * real errors; optionally another deployment's legal choices, latency and faults) runs in this
 * process; the Prism mock (the spec's examples) runs as a child. Ctrl-C or SIGTERM stops both.
 */
import { apiReferencePathOf, buildApiReference } from '../docs/build.ts';
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
  UsageError,
} from '../command-line/flags.ts';
import { onStopSignal } from '../command-line/signals.ts';
import { freePort } from '../command-line/free-port.ts';
import {
  isPortTaken,
  PrismStartError,
  type RunningPrism,
  startPrism,
  stoppedBySignal,
} from '../mock/prism.ts';
import { createLogger } from '../reference-server/log.ts';
import { type RunningServer, startReferenceServer } from '../reference-server/start.ts';
import {
  VARIANT_FLAGS,
  variantBanner,
  variantList,
  type VariantSettings,
  variantSettings,
  variantText,
} from '../reference-server/variant-flags.ts';
import { loadSpec, operationsOf, resolveRef } from '../spec/contract.ts';
import { KEY_PREFIX } from '../spec/facts.ts';
import { partnerFilesOf } from './partner-files.ts';

const COMMAND = {
  name: 'sandbox',
  usage: 'npm start -- [--port N] [--mock-port N] [--host H] [--seed S] [--variant SEED] [...]',
  summary:
    'Starts the sandbox: the reference server (seeded demo data, real keys) and the Prism mock.\nVariants, latency and faults apply to the reference server; the Prism mock answers as always.\nCtrl-C stops both.',
  flags: {
    port: { type: 'string', value: 'N', help: `Reference server port (default 8080; ${PORT_HELP})` },
    'mock-port': { type: 'string', value: 'N', help: `Prism mock port (default 4010; ${PORT_HELP})` },
    host: { type: 'string', value: 'H', help: 'Address both listen on (default 127.0.0.1)' },
    seed: {
      type: 'string',
      value: 'S',
      help: `Demo data set seed, ${SEED_BOUNDS.min} to ${SEED_BOUNDS.max} (default: the reference server's)`,
    },
    'rate-limit': {
      type: 'string',
      value: 'N/min',
      help: 'Per-key rate limit of the reference server, answered with 429 and Retry-After (default: off)',
    },
    spec: {
      type: 'string',
      value: 'FILE',
      help: 'Serve every live operation of this OpenAPI 3.1 spec, its partner files and its mock (default: the project spec)',
    },
    ...VARIANT_FLAGS,
  },
  version: packagedVersion('canvassing-sandbox'),
} as const satisfies CommandSpec;

/** How long both may take to stop before the sandbox gives up waiting and exits anyway. */
const STOP_TIMEOUT_MS = 8_000;

interface SandboxFlags extends VariantSettings {
  host: string;
  port: number;
  mockPort: number;
  seed: number | undefined;
  rateLimit: number | undefined;
  spec: string | undefined;
}

function parseFlags(argv: string[]): SandboxFlags | 'help' {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  const flags = {
    ...variantSettings(values),
    host: values.host ?? '127.0.0.1',
    port: portFlag('--port', values.port, 8080),
    mockPort: portFlag('--mock-port', values['mock-port'], 4010),
    seed: values.seed === undefined ? undefined : integerFlag('--seed', values.seed, SEED_BOUNDS, 0),
    rateLimit:
      values['rate-limit'] === undefined ? undefined : rateLimitFlag('--rate-limit', values['rate-limit']),
    spec: values.spec,
  };
  if (flags.port === flags.mockPort && flags.port !== 0) {
    throw new UsageError('--port and --mock-port must differ');
  }
  return flags;
}

/** Prefixes every line of a child's output, so the two servers' logs can be told apart. */
function linePrefixer(prefix: string): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) process.stdout.write(`${prefix}${line}\n`);
  };
}

/** One short line per request of the reference server (its lines never contain a key). */
const serverLog = createLogger({
  write(line: string) {
    const { msg, req, res, responseTime } = JSON.parse(line) as {
      msg?: string;
      req?: { method: string; path: string };
      res?: { statusCode: number };
      responseTime?: number;
    };
    const summary = req && res ? `${req.method} ${req.path} ${res.statusCode} ${responseTime} ms` : msg;
    process.stdout.write(`[server] ${summary ?? line.trim()}\n`);
  },
});

/** The live GET operations of the served spec. */
function liveReads(spec: string | undefined) {
  const doc = loadSpec(spec);
  const reads = operationsOf(doc).filter(
    (op) => op.method === 'GET' && (op.definition as Record<string, unknown>)['x-status'] !== 'planned',
  );
  return { doc, reads };
}

/** The banner's requests: the first page of every live collection of the served spec. */
function tryRequests(spec: string | undefined): string[] {
  const { doc, reads } = liveReads(spec);
  return reads
    .filter((op) => !op.path.includes('{'))
    .map((op) => {
      const parameters = (op.definition.parameters ?? []).map((p) => resolveRef<{ name?: string }>(doc, p));
      return parameters.some((p) => p.name === 'limit') ? `${op.path}?limit=2` : op.path;
    });
}

/** The banner's request to the mock: the served spec's first live item, asked for an id it has not. */
function mockTry(spec: string | undefined): string[] {
  const item = liveReads(spec).reads.find((op) => op.path.includes('{'));
  return item ? [item.path.replace(/\{[^}]+\}/g, 'any-id')] : [];
}

function banner(server: RunningServer, prism: RunningPrism, flags: SandboxFlags): string {
  const { credentials } = server;
  const dotenv = Object.entries(credentials).map(([name, value]) => `${name}=${value}`);
  return [
    '',
    'Sandbox ready.',
    `  Serving: ${variantBanner(flags)}`,
    `  Rate limit: ${flags.rateLimit ? `${flags.rateLimit} requests a minute per key (429 with Retry-After)` : 'none (--rate-limit N/min)'}`,
    `  Reference server (seeded demo data, real keys): ${server.baseUrl}`,
    `  API reference page:                            ${server.baseUrl}/docs${flags.spec ? ` (of ${flags.spec})` : ''}`,
    `  OpenAPI contract:                              ${server.baseUrl}/openapi.yaml (and .json)`,
    `  Postman collection and environment:            ${server.baseUrl}/postman/collection.json, /postman/environment.json`,
    `  Requests for VS Code and JetBrains:            ${server.baseUrl}/requests.http`,
    `  Prism mock (the spec's examples, any key):     ${prism.baseUrl}`,
    '',
    'Demo credentials (published demo keys of the seeded data set; save them as .env):',
    ...dotenv.map((line) => `  ${line}`),
    '',
    'Try:',
    ...tryRequests(flags.spec).map(
      (path) =>
        `  curl -H 'Authorization: Bearer ${credentials.CONFORMANCE_API_KEY}' '${server.baseUrl}${path}'`,
    ),
    ...mockTry(flags.spec).map(
      (path) => `  curl -H 'x-api-key: ${KEY_PREFIX}anything' -H 'Prefer: code=404' ${prism.baseUrl}${path}`,
    ),
    ...(flags.clock
      ? [
          `  curl -X POST -d '{"advance":"2h"}' ${server.baseUrl}/sandbox/clock   # move the canvassing day on`,
        ]
      : []),
    '',
    'Ctrl-C stops both.',
    '',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const flags = optionsOrExit(COMMAND, argv, parseFlags);
  if (typeof flags === 'number') return flags;
  if (flags.listVariants || flags.printVariant) {
    process.stdout.write(flags.variant ? `${variantText(flags.variant)}\n` : variantList());
    return 0;
  }
  // A spec the server cannot serve is the caller's input: one line naming why, exit 2, nothing started.
  const refused = flags.spec === undefined ? undefined : await refusedSpec(flags.spec);
  if (refused) {
    console.error(`sandbox: cannot start: ${refused}`);
    return 2;
  }
  // Prism cannot be told to take any free port and say which: one is chosen for it (the banner says it).
  if (flags.mockPort === 0) flags.mockPort = await freePort(flags.host);
  if (!(await portsFree(flags))) return 1;

  // The page documents the spec served: with --spec, that spec's own page, built once per change of it.
  const page = flags.spec ? { specPath: flags.spec, outputPath: apiReferencePathOf(flags.spec) } : {};
  await buildApiReference(page).catch((error: unknown) => {
    console.error(
      `sandbox: the API reference page could not be built (/docs will answer 503): ${String(error)}`,
    );
  });
  return serveUntilStopped(flags);
}

/**
 * Why the reference server cannot serve this spec (the line it would stop with), or undefined when
 * it can. Loaded only for `--spec`: the project's spec needs no YAML parse at start-up.
 */
async function refusedSpec(path: string): Promise<string | undefined> {
  const { loadServedSpec, UnservableSpec } = await import('../reference-server/served-spec.ts');
  try {
    loadServedSpec(path);
    return undefined;
  } catch (error) {
    if (error instanceof UnservableSpec) return error.message;
    throw error;
  }
}

async function portsFree(flags: SandboxFlags): Promise<boolean> {
  for (const [flag, port] of [
    ['--port', flags.port],
    ['--mock-port', flags.mockPort],
  ] as const) {
    if (await isPortTaken(flags.host, port)) {
      console.error(`sandbox: ${flags.host}:${port} is already in use; pass another ${flag}.`);
      return false;
    }
  }
  return true;
}

/**
 * Ctrl-C in a terminal reaches this process twice (from the terminal and forwarded by npm) and
 * Prism directly: the first signal starts the stop, later ones change nothing. Stopping is
 * bounded in time, so no second Ctrl-C is ever needed.
 */
async function serveUntilStopped(flags: SandboxFlags): Promise<number> {
  let stopRequested: (signal: NodeJS.Signals) => void = () => undefined;
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    stopRequested = resolve;
  });
  let signalled = false;
  onStopSignal((signal) => {
    signalled = true;
    stopRequested(signal);
  });

  console.log('sandbox: starting the reference server and the Prism mock…');
  const [server, prism] = await startBoth(flags);
  if (server.status === 'rejected' || prism.status === 'rejected') {
    return failedStart(server, prism, signalled);
  }
  if (!signalled) console.log(banner(server.value, prism.value, flags));
  const ended = await Promise.race([stopSignal, prism.value.exited.then((code) => ({ prismExited: code }))]);
  await stopBoth(server.value, prism.value);
  if (typeof ended === 'object' && stoppedBySignal(ended.prismExited)) {
    console.log(`sandbox: stopped (${String(ended.prismExited)}).`);
    return 0;
  }
  if (typeof ended === 'object') {
    console.error(
      `sandbox: the Prism mock exited on its own (${String(ended.prismExited)}); stopped the sandbox.`,
    );
    return 1;
  }
  console.log(`sandbox: stopped (${ended}).`);
  return 0;
}

function startBoth(flags: SandboxFlags) {
  return Promise.allSettled([
    startReferenceServer({
      host: flags.host,
      port: flags.port,
      log: serverLog,
      ...(flags.seed === undefined ? {} : { seed: flags.seed }),
      ...(flags.rateLimit ? { rateLimit: { requestsPerMinute: flags.rateLimit } } : {}),
      ...(flags.variant ? { variant: flags.variant } : {}),
      ...(flags.turbulence ? { turbulence: flags.turbulence } : {}),
      ...(flags.clock ? { clock: flags.clock } : {}),
      ...(flags.spec
        ? {
            spec: flags.spec,
            partnerFiles: partnerFilesOf(flags.spec),
            docsPath: apiReferencePathOf(flags.spec),
          }
        : {}),
    }),
    startPrism({
      host: flags.host,
      port: flags.mockPort,
      logLevel: 'warn',
      output: linePrefixer('[mock] '),
      ...(flags.spec ? { specPath: flags.spec } : {}),
    }),
  ]);
}

/** Says why the start failed (unless a signal interrupted it), stops what did start. */
async function failedStart(
  server: PromiseSettledResult<RunningServer>,
  prism: PromiseSettledResult<RunningPrism>,
  signalled: boolean,
): Promise<number> {
  const interrupted =
    signalled ||
    (prism.status === 'rejected' &&
      prism.reason instanceof PrismStartError &&
      stoppedBySignal(prism.reason.exit));
  for (const failed of [server, prism]) {
    if (failed.status !== 'rejected' || interrupted) continue;
    const error: unknown = failed.reason;
    const output = error instanceof PrismStartError && error.output ? `\n${error.output}` : '';
    console.error(`sandbox: ${error instanceof Error ? error.message : String(error)}${output}`);
  }
  await stopBoth(
    server.status === 'fulfilled' ? server.value : undefined,
    prism.status === 'fulfilled' ? prism.value : undefined,
  );
  return interrupted ? 0 : 1;
}

/** Stops whatever is running, bounded in time: a hung close must not keep the terminal. */
async function stopBoth(server: RunningServer | undefined, prism: RunningPrism | undefined): Promise<void> {
  const stopped = Promise.allSettled([server?.close(), prism?.stop()]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, STOP_TIMEOUT_MS);
  });
  await Promise.race([stopped, timeout]);
  clearTimeout(timer);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`sandbox: ${String(error)}`);
    process.exit(1);
  },
);
