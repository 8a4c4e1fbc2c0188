/**
 * The floors serve exactly the bytes the reference server answered, read from a directory the
 * benchmark writes: `routes.json` maps a request path (query included) to a file of body bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandSpec } from '../../command-line/flags.ts';
import { integerFlag, readFlags, UsageError } from '../../command-line/flags.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface FloorArgs {
  port: number;
  /** Request path (with its query string) → what the reference server sent. */
  routes: Map<string, ServedBody>;
  /**
   * Walks of a data set to generate and hold while serving (0: none), as the reference server holds
   * its own: only `held-node-floor.ts` reads it, bounded by the data set's own maximum there.
   */
  holdWalks: number;
}

export interface ServedBody {
  bytes: Buffer;
  /** The reference server's `Content-Encoding`, sent the same way. */
  contentEncoding?: string;
  /** Every header line the reference server wrote (name, value, ...), less Node's own. */
  headers: string[];
}

export interface RouteFile {
  path: string;
  file: string;
  contentEncoding?: string;
  headers: string[];
}

/** The headers the Express floor sets on a body before Express adds its own. */
export function bodyHeaders({ bytes, contentEncoding }: ServedBody): Record<string, string | number> {
  return {
    'Content-Type': JSON_CONTENT_TYPE,
    ...(contentEncoding ? { 'Content-Encoding': contentEncoding } : {}),
    'Content-Length': bytes.length,
  };
}

/** The command line of both floors, which the benchmark starts. */
const FLOOR_COMMAND = {
  name: 'bench floor',
  usage: 'node bench/floors/<floor>.ts --port N --bytes DIR',
  summary: 'Serves the bytes the reference server answered, as a floor the benchmark compares it with.',
  flags: {
    port: { type: 'string', value: 'N', help: 'Port to listen on (required)' },
    bytes: { type: 'string', value: 'DIR', help: 'Directory with routes.json and the body files (required)' },
    'hold-walks': {
      type: 'string',
      value: 'N',
      help: 'Generate the data set of N walks and hold it while serving (default 0: hold nothing)',
    },
  },
} as const satisfies CommandSpec;

export function floorArgs(argv: string[]): FloorArgs {
  const { values } = readFlags(FLOOR_COMMAND, argv);
  if (!values.port || !values.bytes) throw new UsageError('--port N and --bytes DIR are both required');
  const dir = values.bytes;
  const listed = JSON.parse(readFileSync(join(dir, 'routes.json'), 'utf8')) as RouteFile[];
  return {
    port: integerFlag('--port', values.port, { min: 0, max: 65535 }, 0),
    holdWalks: integerFlag('--hold-walks', values['hold-walks'], { min: 0, max: Number.MAX_SAFE_INTEGER }, 0),
    routes: new Map(
      listed.map(({ path, file, contentEncoding, headers }) => [
        path,
        { bytes: readFileSync(join(dir, file)), contentEncoding, headers },
      ]),
    ),
  };
}
