/**
 * The load generator: autocannon's programmatic API, typed for the part the benchmark and the soak
 * use (the package ships no types). Used as published: the benchmark judges each server by its own
 * CPU time, so what the client spends (autocannon keeps every body as text) does not enter the
 * figures.
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
  /** Requests per second over all connections; unbounded when absent. */
  overallRate?: number;
  headers?: Record<string, string>;
  /** Seconds. */
  duration: number;
  /** Requests to send in all; the run ends after them, whatever `duration` says. */
  amount?: number;
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
  latency: { p50: number; p99: number; max: number; average: number };
  requests: { total: number; average: number };
  throughput: { total: number };
  statusCodeStats: Record<string, { count: number }>;
}

const require = createRequire(import.meta.url);
export const autocannon = require('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;
