/**
 * autocannon's programmatic API, typed for the part the soak uses (the package ships no types).
 */
import { createRequire } from 'node:module';

/** One request definition; `setupRequest` picks what each request really is. */
export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

export interface AutocannonOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Seconds a request may take before it counts as a timeout. */
  timeout?: number;
  sampleInt?: number;
  requests?: AutocannonRequest[];
}

export interface AutocannonResult {
  duration: number;
  /** Socket errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  latency: { p50: number; p99: number; max: number };
  requests: { total: number; average: number };
  statusCodeStats: Record<string, { count: number }>;
}

const require = createRequire(import.meta.url);
export const autocannon = require('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

/**
 * autocannon appends every body chunk to a string for body checks the soak does not make; decoding
 * the large walk bodies would make the client, not the server, the bottleneck. Statuses and byte
 * counts are unaffected. (Process-wide: the soak runs in its own process or test worker.)
 */
const PipelinedRequestsQueue = require('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
PipelinedRequestsQueue.prototype.addBody = () => {};
