/**
 * The floors serve exactly the bytes the reference server answered, read from a directory the
 * benchmark writes: `routes.json` maps a request path (query included) to a file of body bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface FloorArgs {
  port: number;
  /** Request path (with its query string) → what the reference server sent. */
  routes: Map<string, ServedBody>;
}

export interface ServedBody {
  bytes: Buffer;
  /** The reference server's `Content-Encoding`, sent the same way. */
  contentEncoding?: string;
}

export interface RouteFile {
  path: string;
  file: string;
  contentEncoding?: string;
}

/** The headers every floor sends with a body. */
export function bodyHeaders({ bytes, contentEncoding }: ServedBody): Record<string, string | number> {
  return {
    'Content-Type': JSON_CONTENT_TYPE,
    ...(contentEncoding ? { 'Content-Encoding': contentEncoding } : {}),
    'Content-Length': bytes.length,
  };
}

export function floorArgs(argv: string[]): FloorArgs {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { port: { type: 'string' }, bytes: { type: 'string' } },
  });
  if (!values.port || !values.bytes) throw new Error('usage: --port N --bytes DIR');
  const dir = values.bytes;
  const listed = JSON.parse(readFileSync(join(dir, 'routes.json'), 'utf8')) as RouteFile[];
  return {
    port: Number(values.port),
    routes: new Map(
      listed.map(({ path, file, contentEncoding }) => [
        path,
        { bytes: readFileSync(join(dir, file)), contentEncoding },
      ]),
    ),
  };
}

/** Stops on SIGTERM/SIGINT like the reference server does. */
export function stopOnSignals(close: () => void): void {
  const stop = () => {
    close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
