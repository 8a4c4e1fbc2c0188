/**
 * What a run shows while it runs. On a terminal, one live line (requests sent, their rate, time
 * elapsed), redrawn in place and cleared before the report; with `--log-requests`, one line per
 * attempt as it ends: method, path, status (or why there was none) and milliseconds, never a key or
 * a header value. Output that is not a terminal (CI) gets nothing unless `--log-requests` asks.
 */
import type { ExchangeListener, HttpClient } from '../transport/client.ts';
import type { Exchange } from '../core/exchange.ts';

export interface ProgressOptions {
  /** Stdout is a terminal: the live line is drawn. */
  live: boolean;
  logRequests: boolean;
  write: (text: string) => void;
}

/** Carriage return, then erase the line: the live line's way to redraw and to go. */
const CLEAR_LINE = '\r\u001b[2K';
/** The live line is redrawn at most this often when requests end, and at least once a second. */
const REDRAW_MS = 100;

export class Progress {
  private readonly options: ProgressOptions;
  private client: HttpClient | undefined;
  private started = 0;
  private drawnAt = Number.NEGATIVE_INFINITY;
  private shown = false;
  private ticker: NodeJS.Timeout | undefined;

  constructor(options: ProgressOptions) {
    this.options = options;
  }

  /** Follows the run's client from its first request on (a no-op when nothing is to be shown). */
  attach(client: HttpClient): void {
    if (!this.options.live && !this.options.logRequests) return;
    this.client = client;
    this.started = performance.now();
    const listener: ExchangeListener = (exchange) => this.settled(exchange);
    client.onSettled(listener);
    if (this.options.live) {
      this.ticker = setInterval(() => this.draw(), 1_000);
      this.ticker.unref();
    }
  }

  /** Clears the live line: the report follows on a clean line. */
  finish(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.shown) this.options.write(CLEAR_LINE);
    this.shown = false;
  }

  private settled(exchange: Exchange): void {
    if (this.options.logRequests) {
      if (this.shown) this.options.write(CLEAR_LINE);
      this.shown = false;
      this.options.write(`${requestLine(exchange)}\n`);
    }
    if (this.options.live && (!this.shown || performance.now() - this.drawnAt >= REDRAW_MS)) this.draw();
  }

  private draw(): void {
    if (!this.client || !this.options.live) return;
    const seconds = (performance.now() - this.started) / 1000;
    const sent = this.client.sent;
    const rate = seconds > 0 ? sent / seconds : 0;
    this.options.write(
      `${CLEAR_LINE}conformance: ${sent} request${sent === 1 ? '' : 's'} · ${rate.toFixed(1)}/s · ${seconds.toFixed(1)} s`,
    );
    this.shown = true;
    this.drawnAt = performance.now();
  }
}

/** `GET /api/v1/walks?limit=1 200 12 ms`, `… 429 3 ms (tried again)`, `… timeout 10000 ms`. */
function requestLine(exchange: Exchange): string {
  const url = new URL(exchange.request.url);
  const outcome = exchange.response
    ? String(exchange.response.status)
    : (exchange.error?.kind ?? 'no answer');
  const again = exchange.retriedAs !== undefined ? ' (tried again)' : '';
  return `${exchange.request.method} ${url.pathname}${url.search} ${outcome} ${exchange.durationMs} ms${again}`;
}
