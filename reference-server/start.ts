/**
 * Starts the reference server in-process (for the conformance suite, the sandbox and tests) on the
 * seeded demo data set, and stops it cleanly.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  type Dataset,
  type DatasetOptions,
  type DemoCredentials,
  demoCredentials,
  generateDataset,
} from '../fixtures/index.ts';
import { WEB_BASE_URL_NAME } from '../spec/facts.ts';
import { createApp } from './app.ts';
import type { Logger } from 'pino';
import { DEFAULT_WEB_BASE_URL, normalizeWebBaseUrl } from './web-base-url.ts';
import { HEADERS_TOO_LARGE, METHOD_NOT_ALLOWED, REQUEST_TIMEOUT, UNPARSEABLE_REQUEST } from './errors.ts';
import type { RateLimitConfig } from './auth/rate-limit.ts';
import { answerForSocket } from './envelope.ts';
import type { TurbulenceConfig } from './turbulence.ts';
import type { ClockConfig } from './clock/sandbox-clock.ts';
import type { Variant } from './variants/variant.ts';
import { listenUrl } from '../command-line/listen-url.ts';
import { scopesOf, WALK_OPERATION_PATHS } from './served-operations.ts';
import { LIVE_SPEC_FILE, pathTemplatesOf } from './spec-files.ts';
import type { PartnerFiles } from './config.ts';

export interface StartOptions extends DatasetOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  webBaseUrl?: string;
  /** The logger of the request lines (`log.ts`); `false` for none. Default: JSON lines on stdout. */
  log?: Logger | false;
  rateLimit?: RateLimitConfig | false;
  /** Other legal choices on the open points (`variantOf(seed)`); default: ours. */
  variant?: Variant;
  /** Added latency and injected faults; default: none. */
  turbulence?: TurbulenceConfig | false;
  /** The canvassing day on a clock (`--clock`); default: the data never changes. */
  clock?: ClockConfig | false;
  /**
   * `--spec FILE`: serve every live operation of this spec (default: the project's). Refused with
   * an `UnservableSpec` when one cannot be served.
   */
  spec?: string;
  /** The partner files to serve in place of the built ones (the sandbox makes them from `spec`). */
  partnerFiles?: PartnerFiles;
  /** The reference page served at `/docs` (the sandbox builds one from `spec`); default: the project's. */
  docsPath?: string;
}

export interface RunningServer {
  /** For example `http://127.0.0.1:43123` (no trailing slash); `localhost` when it listens on every address. */
  baseUrl: string;
  /** The demo keys and the `{web_base_url}`, by their contract names (`spec/facts.ts`). */
  credentials: DemoCredentials & Record<typeof WEB_BASE_URL_NAME, string>;
  server: Server;
  close(): Promise<void>;
}

/** How long open requests may run on after `close()` before their connections are cut. */
const SHUTDOWN_GRACE_MS = 5_000;
/** How long a client may take to send all its headers, and its whole request. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export async function startReferenceServer(options: StartOptions = {}): Promise<RunningServer> {
  const {
    host = '127.0.0.1',
    port = 0,
    webBaseUrl = DEFAULT_WEB_BASE_URL,
    log,
    rateLimit,
    variant,
    turbulence,
    clock,
    spec,
    partnerFiles,
    docsPath,
    ...sizes
  } = options;
  const { dataset, served } = await dataToServe(spec, sizes);
  const app = createApp({
    dataset,
    ...(served ? { served } : {}),
    config: {
      ...(spec === undefined ? {} : { specPath: spec }),
      ...(partnerFiles === undefined ? {} : { partnerFiles }),
      ...(docsPath === undefined ? {} : { docsPath }),
      webBaseUrl,
      ...(log === undefined ? {} : { log }),
      ...(rateLimit === undefined ? {} : { rateLimit }),
      ...(variant === undefined ? {} : { variant }),
      ...(turbulence === undefined ? {} : { turbulence }),
      ...(clock === undefined ? {} : { clock }),
    },
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    baseUrl: listenUrl(address.address, address.port),
    credentials: {
      ...demoCredentials({ seed: dataset.seed }),
      [WEB_BASE_URL_NAME]: normalizeWebBaseUrl(webBaseUrl),
    },
    server,
    close: () => closeServer(server),
  };
}

/**
 * The data set, and with `--spec` the operations of that spec and the data drawn from its schemas
 * (loaded only then: the project's spec needs no YAML parse, no Ajv and no generator at start-up).
 */
async function dataToServe(given: string | undefined, sizes: DatasetOptions) {
  const spec = specToServe(given);
  if (spec === undefined) return { dataset: generateDataset(sizes), served: undefined };
  const { loadServedSpec, schemaResources } = await import('./served-spec.ts');
  const servedSpec = loadServedSpec(spec);
  const dataset = generateDataset({ ...sizes, liveScopes: scopesOf(servedSpec.operations) });
  return {
    dataset,
    served: { operations: servedSpec.operations, resources: schemaResources(servedSpec, dataset) },
  };
}

/**
 * The spec to read whole and serve: the given one, else the project's once it has live paths
 * beyond the walks' (the walks alone need no YAML parse, no Ajv and no generator at start-up).
 */
export function specToServe(given?: string): string | undefined {
  if (given !== undefined) return given;
  return pathTemplatesOf(LIVE_SPEC_FILE).every((path) => WALK_OPERATION_PATHS.has(path))
    ? undefined
    : LIVE_SPEC_FILE;
}

/** What `createApp` serves of `spec` for a data set made for it: its operations, and data drawn from its schemas. */
export async function servedFor(spec: string, dataset: Dataset) {
  const { loadServedSpec, schemaResources } = await import('./served-spec.ts');
  const servedSpec = loadServedSpec(spec);
  return { operations: servedSpec.operations, resources: schemaResources(servedSpec, dataset) };
}

/**
 * An HTTP server for the app whose own refusals are answered in the envelope too: requests Node
 * cannot parse, and `CONNECT`. HTTP/1.1 requests without `Host` reach the app, which refuses them
 * (RFC 9112 §3.2; Node's built-in check would answer with an empty body).
 */
export function createHttpServer(app: RequestListener): Server {
  const options = {
    requireHostHeader: false,
    // A client that dribbles its headers or body is cut off, with the 408 envelope, well before
    // Node's defaults (60 s and 300 s): partners' code should not hold the sandbox's sockets.
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
  };
  const server = createServer(options, app);
  server.on('clientError', answerUnparseableRequest);
  // Without these listeners Node cuts a CONNECT without a word and answers an unknown `Expect`
  // with an empty 417; the API has no tunnels and ignores expectations it does not know.
  server.on('connect', refuseTunnel);
  server.on('checkExpectation', app);
  return server;
}

/** Stops accepting, lets open requests finish, cuts what is left after the grace period. */
export function closeServer(server: Server, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) return resolve();
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close((error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

/** D-METHOD for `CONNECT`, which Node hands over as a raw socket instead of a request. */
function refuseTunnel(_req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  socket.end(answerForSocket(METHOD_NOT_ALLOWED));
}

/**
 * Node answers requests it cannot parse before Express sees them; give those the envelope too,
 * instead of Node's bare `400 Bad Request`. Like Node's own handler, answer only when nothing has
 * been written on the connection yet (otherwise the bytes would corrupt an answer in flight).
 */
function answerUnparseableRequest(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || socket.bytesWritten > 0 || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? HEADERS_TOO_LARGE
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? REQUEST_TIMEOUT
        : UNPARSEABLE_REQUEST;
  socket.end(answerForSocket(answer));
}
