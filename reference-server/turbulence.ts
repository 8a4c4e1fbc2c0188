/**
 * Latency and faults (`--latency`, `--faults`, `--fault-kinds`): what a real deployment does to a
 * partner's client that the sandbox otherwise never would. Both are drawn per request, in arrival
 * order, from a seeded stream, so a run with the same seed and the same requests meets the same
 * delays and the same failures. They touch only the API's paths (`/api/`), never `/docs`.
 *
 * A 429 or 500 fault is an error passed to the one error handler; `reset` destroys the
 * connection without an answer; `truncated` marks the response so that `sendBytes` sends half of
 * its body and cuts the connection (`isTruncated`).
 */
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { badValue } from '../command-line/flags.ts';
import { type ForkedSource, SeededSource } from '../fixtures/seeded-source.ts';
import { ApiError, errorAnswer, rateLimited } from './errors.ts';

export const FAULT_KINDS = ['429', '500', 'reset', 'truncated'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface TurbulenceConfig {
  /** Milliseconds added before each answer, drawn uniformly from min..max; none when absent. */
  latency?: { minMs: number; maxMs: number };
  /** The share of requests (0..1) that fail, each with one of `kinds` drawn uniformly. */
  faults?: { rate: number; kinds: readonly FaultKind[] };
  /** Seed of the stream the delays and faults are drawn from. */
  seed: number;
  /** How a delay is waited (tests pass a recording clock); default `setTimeout`. */
  schedule?: (resume: () => void, ms: number) => void;
}

/** Seconds a throttled client is told to wait. */
export const FAULT_RETRY_AFTER_S = 1;
/** An injected failure, not a bug of ours: the same envelope as `internal_error`, its own message. */
const INJECTED_FAILURE = errorAnswer(500, 'internal_error', 'Injected fault (--faults): please retry.');
const TURBULENCE_STREAM = 23;
const truncated = new WeakSet<ServerResponse>();

/** Whether this response is to lose the second half of its body (a `truncated` fault). */
export function isTruncated(res: ServerResponse): boolean {
  return truncated.has(res);
}

export function turbulence(config: TurbulenceConfig): RequestHandler {
  const draw = new SeededSource(config.seed, TURBULENCE_STREAM).fork();
  const schedule = config.schedule ?? ((resume, ms) => setTimeout(resume, ms));
  return (req, res, next) => {
    if (!req.path.startsWith('/api/')) return next();
    const delayMs = config.latency ? delayOf(draw, config.latency) : 0;
    const fault = config.faults ? faultOf(draw, config.faults) : undefined;
    const proceed = () => {
      if (fault === undefined) return next();
      if (fault === '429') return next(new ApiError(rateLimited(FAULT_RETRY_AFTER_S)));
      if (fault === '500') return next(new ApiError(INJECTED_FAILURE));
      if (fault === 'reset') return void req.socket.destroy();
      truncated.add(res);
      next();
    };
    if (delayMs > 0) schedule(proceed, delayMs);
    else proceed();
  };
}

function delayOf(draw: ForkedSource, { minMs, maxMs }: { minMs: number; maxMs: number }): number {
  return minMs === maxMs ? minMs : minMs + draw.fraction() * (maxMs - minMs);
}

function faultOf(draw: ForkedSource, { rate, kinds }: { rate: number; kinds: readonly FaultKind[] }) {
  const roll = draw.fraction();
  const kind = draw.pick(kinds);
  return roll < rate ? kind : undefined;
}

/** `--latency 200` or `--latency 100-400` (milliseconds, at most a minute). */
export function parseLatency(raw: string): { minMs: number; maxMs: number } {
  const match = /^([0-9]+)(?:-([0-9]+))?$/.exec(raw);
  const minMs = Number(match?.[1]);
  const maxMs = match?.[2] === undefined ? minMs : Number(match[2]);
  if (!match || !(minMs <= maxMs && maxMs <= 60_000)) {
    throw badValue('--latency', 'MS or MIN-MAX in milliseconds, up to 60000', raw);
  }
  return { minMs, maxMs };
}

/** `--faults 0.05`: a share of requests from 0 to 1. */
export function parseFaultRate(raw: string): number {
  const rate = /^(0(\.[0-9]+)?|1(\.0+)?)$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(rate >= 0 && rate <= 1)) throw badValue('--faults', 'a share from 0 to 1, such as 0.05', raw);
  return rate;
}

/** `--fault-kinds 429,500,reset,truncated` (any non-empty subset). */
export function parseFaultKinds(raw: string): FaultKind[] {
  const kinds = raw.split(',').map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
  if (kinds.length === 0 || unknown.length > 0) {
    throw badValue('--fault-kinds', `a comma list of ${FAULT_KINDS.join(', ')}`, raw);
  }
  return [...new Set(kinds)] as FaultKind[];
}

/** One line for banners and logs: what is on. */
export function describeTurbulence(config: TurbulenceConfig | false | undefined): string {
  if (!config) return 'no added latency, no faults';
  const { latency, faults } = config;
  const delay = !latency
    ? 'no added latency'
    : latency.minMs === latency.maxMs
      ? `latency ${latency.minMs} ms`
      : `latency ${latency.minMs}-${latency.maxMs} ms`;
  const failing = faults
    ? `faults on ${faults.rate * 100}% of requests (${faults.kinds.join(', ')})`
    : 'no faults';
  return `${delay}, ${failing}, seed ${config.seed}`;
}
