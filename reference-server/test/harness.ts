/**
 * In-process test server: `createApp` on `listen(0)` at 127.0.0.1, a raw HTTP client that sends
 * exactly the path and headers it is given, and the contract validator compiled once.
 */
import { once } from 'node:events';
import { request, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Dataset,
  type DemoCredentials,
  demoCredentials,
  generateDataset,
  type DatasetOptions,
} from '../../fixtures/index.ts';
import { createContractValidator } from '../../spec/contract.ts';
import { createApp } from '../app.ts';
import type { ServerConfig } from '../config.ts';
import type { Logger } from 'pino';
import { createLogger } from '../log.ts';
import { createHttpServer, servedFor, specToServe } from '../start.ts';

export const contract = createContractValidator();

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes as they came over the wire. */
  bytes: Buffer;
  /** The parsed body, or undefined when it is empty or not JSON. */
  body: unknown;
}

export interface TestServer {
  baseUrl: string;
  dataset: Dataset;
  keys: DemoCredentials;
  get(path: string, headers?: OutgoingHttpHeaders): Promise<Answer>;
  send(method: string, path: string, headers?: OutgoingHttpHeaders, body?: string | Buffer): Promise<Answer>;
  close(): Promise<void>;
}

const datasets = new Map<string, Dataset>();

/** Data sets are immutable: generate each once per test file. */
export function datasetFor(options: DatasetOptions = {}): Dataset {
  const key = JSON.stringify(options);
  let dataset = datasets.get(key);
  if (!dataset) {
    dataset = generateDataset(options);
    datasets.set(key, dataset);
  }
  return dataset;
}

export async function startTestServer(
  config: Partial<ServerConfig> = {},
  options: DatasetOptions | Dataset = {},
): Promise<TestServer> {
  const dataset =
    'walks' in options && Array.isArray(options.walks)
      ? (options as Dataset)
      : datasetFor(options as DatasetOptions);
  // What the server serves is the project's spec, as `npm run reference-server` serves it.
  const spec = specToServe();
  const served = spec === undefined ? undefined : await servedFor(spec, dataset);
  const server = createHttpServer(
    createApp({ dataset, ...(served ? { served } : {}), config: { log: false, ...config } }),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const send = (method: string, path: string, headers: OutgoingHttpHeaders = {}, body?: string | Buffer) =>
    rawRequest(port, method, path, headers, body);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataset,
    keys: demoCredentials({ seed: dataset.seed }),
    get: (path, headers) => send('GET', path, headers),
    send,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `{ authorization: 'Bearer <key>' }` */
export function bearer(key: string): OutgoingHttpHeaders {
  return { authorization: `Bearer ${key}` };
}

interface ErrorBody {
  ok: false;
  error: { code: string; message: string };
}

/** Asserts the answer is the error envelope (closed objects) and returns its error. */
export function errorOf(answer: Answer): ErrorBody['error'] {
  const result = contract.validateSchema('ErrorEnvelope', answer.body);
  if (!result.valid) {
    throw new Error(
      `not the error envelope (${answer.status}): ${result.errors.join('; ')}: ${answer.text.slice(0, 200)}`,
    );
  }
  return (answer.body as ErrorBody).error;
}

/** Validates an answer of a documented operation against the spec and returns its body. */
export function validBody<T>(operationId: 'listWalks' | 'getWalk', answer: Answer): T {
  const result = contract.validateResponse(operationId, answer.status, answer.body);
  if (!result.valid) {
    throw new Error(`${operationId} ${answer.status} violates the spec: ${result.errors.join('; ')}`);
  }
  return answer.body as T;
}

export function activeWalksOf(dataset: Dataset, campaignIndex: number) {
  const campaign = dataset.campaigns[campaignIndex];
  if (!campaign) throw new Error(`no campaign ${campaignIndex}`);
  return dataset.walks.filter((walk) => walk.campaignId === campaign.id && walk.state === 'active');
}

/** A log line as the server writes it (`log.ts`): pino's fields, and a request line's own. */
export interface LogLine {
  level: string;
  time: string;
  msg: string;
  req?: { id: string; method: string; path: string };
  res?: { statusCode: number };
  responseTime?: number;
  err?: { message: string; stack: string };
  [field: string]: unknown;
}

/** What `recordingLogger` gives a test: the logger, the lines so far, and a way to wait for one. */
export interface RecordedLog {
  logger: Logger;
  lines: LogLine[];
  /** Every line's text as written. */
  text(): string;
  /** Resolves once `count` lines (default 1) meet `test`: a request's line follows its answer. */
  until(test: (line: LogLine) => boolean, count?: number): Promise<LogLine[]>;
}

/** The server's logger, keeping every line it writes, parsed. */
export function recordingLogger(): RecordedLog {
  const lines: LogLine[] = [];
  const waiting = new Set<() => void>();
  let text = '';
  const logger = createLogger({
    write(line: string) {
      text += line;
      lines.push(JSON.parse(line) as LogLine);
      for (const wake of waiting) wake();
    },
  });
  const until = (test: (line: LogLine) => boolean, count = 1) =>
    new Promise<LogLine[]>((resolve) => {
      const wake = () => {
        const met = lines.filter(test);
        if (met.length < count) return;
        waiting.delete(wake);
        resolve(met);
      };
      waiting.add(wake);
      wake();
    });
  return { logger, lines, text: () => text, until };
}

/** A request's line: one per request, once its answer is finished or its connection gone. */
export const isRequestLine = (line: LogLine): boolean => line.req !== undefined && line.res !== undefined;
