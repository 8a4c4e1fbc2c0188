/**
 * In-process test server: `createRequestListener` on `listen(0)` at 127.0.0.1, a raw HTTP client that sends
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
import { createRequestListener } from '../app.ts';
import type { ServerConfig } from '../config.ts';
import { createHttpServer } from '../start.ts';

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
  const server = createHttpServer(createRequestListener({ dataset, config: { log: false, ...config } }));
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
