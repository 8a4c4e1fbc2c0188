/**
 * Runs Prism (`@stoplight/prism-cli`) as a child process serving one of our specs, and waits until
 * it listens. The mock launcher, the sandbox and the tests all start Prism through this module so
 * the flags that make the mock honest (`--errors`, no CORS) are written once.
 */
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { execa, type Subprocess } from 'execa';
import { isListening, listenUrl } from '../command-line/listen-url.ts';
import { LIVE_SPEC_PATH, PLANNED_SPEC_PATH } from '../spec/facts.ts';

/** The package's documented entry (`main`, which is also its `prism` bin), not a path inside it. */
const PRISM_CLI = createRequire(import.meta.url).resolve('@stoplight/prism-cli');

/**
 * Prism runs under this small preamble: it exits as soon as its stdin (a pipe from us) closes,
 * which happens whenever we go away, even by SIGKILL. So no Prism is ever left orphaned.
 * (`prism` fills argv[1], where the CLI expects its own script name.)
 */
const EXIT_WITH_PARENT = [
  "process.stdin.on('end', () => process.exit(0));",
  "process.stdin.on('error', () => process.exit(0));",
  'process.stdin.resume();',
  `require(${JSON.stringify(PRISM_CLI)});`,
].join(' ');

/** How long Prism may take to stop before it is killed (SIGKILL). */
const STOP_GRACE_MS = 3_000;

export const DEFAULT_MOCK_HOST = '127.0.0.1';
export const DEFAULT_MOCK_PORT = 4010;

export type MockedSpec = 'live' | 'planned';

const SPEC_PATHS: Record<MockedSpec, string> = { live: LIVE_SPEC_PATH, planned: PLANNED_SPEC_PATH };

export interface PrismOptions {
  spec?: MockedSpec;
  /** Serves this file instead of the spec's own (tests use it to prove that a drifted example fails). */
  specPath?: string;
  host?: string;
  port?: number;
  /**
   * `inherit`: Prism writes its request log straight to this terminal (colours kept).
   * `capture` (default): its output is kept in memory and only shown when it fails to start.
   * A function receives each chunk of output (for prefixing).
   */
  output?: 'inherit' | 'capture' | ((chunk: string) => void);
  /** Prism's log level: `info` logs every request, `warn` only violations and errors. */
  logLevel?: 'info' | 'warn';
  /** How long to wait for the first answer; Prism needs a few seconds to load the spec. */
  startTimeoutMs?: number;
}

export interface RunningPrism {
  baseUrl: string;
  spec: MockedSpec;
  pid: number;
  /** Resolves with the exit code (or the signal's name) once Prism has exited. */
  exited: Promise<number | NodeJS.Signals>;
  /** Sends SIGTERM, then SIGKILL if Prism is still there a few seconds later; resolves once it is gone. */
  stop(): Promise<void>;
}

/**
 * The Prism command line: `--errors` so an example that drifts from its schema becomes a loud 500
 * instead of a silently wrong body, and `--cors=false` because the API grants no CORS (D-CORS);
 * Prism's default would answer any origin with credentials allowed.
 */
function prismArguments(specPath: string, host: string, port: number, logLevel = 'info'): string[] {
  return [
    'mock',
    specPath,
    '--host',
    host,
    '--port',
    String(port),
    '--errors',
    '--cors=false',
    // Dynamic mode (`Prefer: dynamic=true`): no invented extra properties, which the envelopes'
    // `unevaluatedProperties: false` refuses (json-schema-faker does not read that keyword).
    '--json-schema-faker-fillProperties=false',
    '-v',
    logLevel,
  ];
}

export class PrismStartError extends Error {
  readonly code = 'prism_start_failed';
  readonly output: string;
  /** How Prism ended, when it exited before answering. */
  readonly exit: number | NodeJS.Signals | undefined;
  constructor(message: string, output: string, exit?: number | NodeJS.Signals) {
    super(message);
    this.output = output;
    this.exit = exit;
  }
}

/**
 * Whether Prism was stopped by a signal rather than failing: a Ctrl-C in a terminal reaches Prism
 * directly (same process group), possibly before it reaches its launcher.
 */
export function stoppedBySignal(exit: number | NodeJS.Signals | undefined): boolean {
  return exit === 'SIGINT' || exit === 'SIGTERM';
}

export async function startPrism(options: PrismOptions = {}): Promise<RunningPrism> {
  const spec = options.spec ?? 'live';
  const host = options.host ?? DEFAULT_MOCK_HOST;
  const port = options.port ?? DEFAULT_MOCK_PORT;
  const output = options.output ?? 'capture';
  const baseUrl = listenUrl(host, port);

  const args = prismArguments(options.specPath ?? SPEC_PATHS[spec], host, port, options.logLevel);
  const shown = output === 'inherit' ? 'inherit' : 'pipe';
  const child = execa(process.execPath, ['-e', EXIT_WITH_PARENT, 'prism', ...args], {
    stdin: 'pipe',
    stdout: shown,
    stderr: shown,
    env: { FORCE_COLOR: output === 'inherit' ? process.env.FORCE_COLOR : '0' },
    buffer: false,
    reject: false,
    forceKillAfterDelay: STOP_GRACE_MS,
  });
  const tail = outputTail(child, output);
  // 1 when it could not be spawned at all.
  const exited = child.then((ended) => ended.signal ?? ended.exitCode ?? 1);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };

  let exit: number | NodeJS.Signals | undefined;
  void exited.then((value) => {
    exit = value;
  });
  try {
    await waitUntilListening(host, port, { timeoutMs: options.startTimeoutMs ?? 30_000, gaveUp: exited });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    const reason = error instanceof Error ? error.message : String(error);
    throw new PrismStartError(`Prism did not start on ${baseUrl}: ${reason}`, tail(), exit);
  }
  if (child.pid === undefined) throw new PrismStartError('Prism has no process id', tail());
  return { baseUrl, spec, pid: child.pid, exited, stop };
}

/** Keeps the last 16 KB of Prism's output, so a failed start can say why. */
function outputTail(child: Subprocess, output: PrismOptions['output']): () => string {
  let kept = '';
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (typeof output === 'function') output(text);
    kept = (kept + text).slice(-16_384);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return () => kept;
}

interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Stops waiting as soon as this settles (e.g. the process exited before answering). */
  gaveUp?: Promise<unknown>;
}

/**
 * Polls host:port until a connection is accepted; bounded in time and in attempts. Prism listens
 * only once it has loaded the spec, and a connection (unlike a request) is not in its request log,
 * so nobody sees a probe of a path the spec does not have.
 */
async function waitUntilListening(host: string, port: number, options: WaitOptions): Promise<void> {
  const intervalMs = options.intervalMs ?? 150;
  const deadline = Date.now() + options.timeoutMs;
  let gaveUp: string | undefined;
  void options.gaveUp?.then((value) => {
    gaveUp = `the process exited (${String(value)}) before listening`;
  });
  const maxAttempts = Math.ceil(options.timeoutMs / intervalMs) + 1;
  for (let attempt = 0; attempt < maxAttempts && Date.now() < deadline; attempt++) {
    if (gaveUp) throw new Error(gaveUp);
    if (await isListening(host, port)) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(gaveUp ?? `not listening within ${options.timeoutMs} ms`);
}

/** Whether something already listens on host:port (checked before starting, for a clear message). */
export function isPortTaken(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(false)));
  });
}
