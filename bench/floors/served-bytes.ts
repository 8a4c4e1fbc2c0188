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
  /** Request path (with its query string) → body bytes. */
  routes: Map<string, Buffer>;
}

export interface RouteFile {
  path: string;
  file: string;
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
    routes: new Map(listed.map(({ path, file }) => [path, readFileSync(join(dir, file))])),
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
