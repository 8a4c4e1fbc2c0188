/**
 * `npm run mock -- [--port N] [--host H] [--planned]`: serves spec/openapi.yaml (or, with
 * --planned, spec/planned.openapi.yaml alone) with Prism, forwards SIGINT/SIGTERM to it and exits
 * when it does.
 */
import { freePort } from '../command-line/free-port.ts';
import {
  DEFAULT_MOCK_HOST,
  DEFAULT_MOCK_PORT,
  isPortTaken,
  type MockedSpec,
  PrismStartError,
  type RunningPrism,
  startPrism,
  stoppedBySignal,
} from './prism.ts';
import type { CommandSpec } from '../command-line/flags.ts';
import { optionsOrExit, packagedVersion, PORT_HELP, portFlag, readFlags } from '../command-line/flags.ts';
import { onStopSignal } from '../command-line/signals.ts';
import { KEY_PREFIX } from '../spec/facts.ts';

const COMMAND = {
  name: 'mock',
  usage: 'npm run mock -- [--port N] [--host H] [--planned]',
  summary:
    "Serves the API's OpenAPI contract with the Prism mock server (example answers, no real data).\nCtrl-C stops it.",
  flags: {
    port: {
      type: 'string',
      value: 'N',
      help: `Port to listen on (default ${DEFAULT_MOCK_PORT}; ${PORT_HELP})`,
    },
    host: { type: 'string', value: 'H', help: `Address to listen on (default ${DEFAULT_MOCK_HOST})` },
    planned: {
      type: 'boolean',
      help: 'Mock the PLANNED endpoints (spec/planned.openapi.yaml) instead of the live ones',
    },
  },
  version: packagedVersion('canvassing-mock'),
} as const satisfies CommandSpec;

interface MockFlags {
  host: string;
  port: number;
  spec: MockedSpec;
}

function parseFlags(argv: string[]): MockFlags | 'help' {
  const { values } = readFlags(COMMAND, argv);
  if (values.help) return 'help';
  return {
    host: values.host ?? DEFAULT_MOCK_HOST,
    port: portFlag('--port', values.port, DEFAULT_MOCK_PORT),
    spec: values.planned ? 'planned' : 'live',
  };
}

function banner(prism: RunningPrism): string {
  const sample = prism.spec === 'planned' ? '/api/v1/lists' : '/api/v1/walks';
  const lines =
    prism.spec === 'planned'
      ? [
          '',
          '*** PLANNED ENDPOINTS — NOT ACTIVE. Shapes may change before launch; do not build production code on them. ***',
          `Prism mock of spec/planned.openapi.yaml at ${prism.baseUrl}`,
        ]
      : ['', `Prism mock of spec/openapi.yaml (live endpoints) at ${prism.baseUrl}`];
  return [
    ...lines,
    "Answers come from the spec's examples; any key is accepted (only its presence is checked).",
    `  curl -H 'x-api-key: ${KEY_PREFIX}anything' ${prism.baseUrl}${sample}`,
    `  curl -H 'x-api-key: ${KEY_PREFIX}anything' -H 'Prefer: code=403' ${prism.baseUrl}${sample}`,
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const flags = optionsOrExit(COMMAND, argv, parseFlags);
  if (typeof flags === 'number') return flags;
  // Prism cannot be told to take any free port and say which: one is chosen for it (the banner says it).
  if (flags.port === 0) flags.port = await freePort(flags.host);
  if (await isPortTaken(flags.host, flags.port)) {
    console.error(`mock: ${flags.host}:${flags.port} is already in use; pass another --port.`);
    return 1;
  }

  // A terminal's Ctrl-C reaches Prism directly as well (same process group), and npm forwards the
  // signal once more: the first signal stops Prism, later ones change nothing. Stopping is bounded
  // (SIGKILL after a grace period), so no second Ctrl-C is ever needed.
  let stopping = false;
  let prism: RunningPrism | undefined;
  onStopSignal(() => {
    stopping = true;
    void prism?.stop();
  });

  console.log(
    flags.spec === 'planned' ? 'mock: starting Prism on the PLANNED endpoints…' : 'mock: starting Prism…',
  );
  try {
    prism = await startPrism({ spec: flags.spec, host: flags.host, port: flags.port, output: 'inherit' });
  } catch (error) {
    if (stopping || (error instanceof PrismStartError && stoppedBySignal(error.exit))) return 0;
    const output = error instanceof PrismStartError && error.output ? `\n${error.output}` : '';
    console.error(`mock: ${error instanceof Error ? error.message : String(error)}${output}`);
    return 1;
  }
  if (stopping) {
    await prism.stop();
    return 0;
  }
  console.log(banner(prism));
  const ended = await prism.exited;
  if (stopping || stoppedBySignal(ended)) return 0;
  console.error(`mock: Prism exited on its own (${String(ended)}).`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`mock: ${String(error)}`);
    process.exit(1);
  },
);
