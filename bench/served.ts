/**
 * The answers the benchmark measures, fetched from the running reference server as they come over
 * the wire, and handed to the floors so that they serve the very same bytes (checked byte for byte).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { LIMIT } from '../spec/facts.ts';
import type { Coding, Endpoint, RevalidationFigures } from './figures.ts';
import type { RouteFile } from './floors/served-bytes.ts';
import type { ServerChild } from './processes.ts';

/** The largest list a client can ask for. */
export const LIST_PATH = `/api/v1/walks?limit=${LIMIT.maximum}`;

export interface Served {
  path: string;
  /** The body as sent. */
  bytes: Buffer;
  etag: string | undefined;
  contentEncoding: string | undefined;
  /**
   * The answer's header lines (name, value, ...) as the server wrote them, less those Node writes
   * for any server (`NOT_THE_ANSWERS`): what the Node floor sends back, so that it writes the same
   * bytes.
   */
  headers: string[];
}

/** Written by Node's HTTP server on every answer, whoever serves; different on each one (`Date`). */
const NOT_THE_ANSWERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** One GET, the body as it came over the wire (undici's `request` decodes nothing). */
export async function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; served: Served }> {
  const response = await request(url, { headers });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const { pathname, search } = new URL(url);
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const lines: string[] = [];
  for (const [name, value] of Object.entries(response.headers)) {
    if (NOT_THE_ANSWERS.has(name) || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(name, one);
  }
  return {
    status: response.statusCode,
    served: {
      path: pathname + search,
      bytes,
      etag: header('etag'),
      contentEncoding: header('content-encoding'),
      headers: lines,
    },
  };
}

/** A body as JSON text, whichever coding it came in. */
function decoded({ bytes, contentEncoding }: Served): string {
  if (contentEncoding === undefined) return bytes.toString('utf8');
  if (contentEncoding === 'gzip') return gunzipSync(bytes).toString('utf8');
  throw new Error(`the reference server answered with Content-Encoding: ${contentEncoding}`);
}

/** The two benchmarked answers of a running reference server: the list and its largest walk. */
export async function benchmarkedAnswers(
  baseUrl: string,
  headers: Record<string, string>,
): Promise<Record<Endpoint, Served>> {
  const list = await get(baseUrl + LIST_PATH, headers);
  if (list.status !== 200) throw new Error(`the reference list answered ${list.status}`);
  const walks = (JSON.parse(decoded(list.served)) as { data: { id: string; count: number }[] }).data;
  const largest = walks.reduce((best, walk) => (walk.count > best.count ? walk : best));
  const detail = await get(`${baseUrl}/api/v1/walks/${largest.id}`, headers);
  if (detail.status !== 200) throw new Error(`the reference detail answered ${detail.status}`);
  return { list: list.served, detail: detail.served };
}

export async function revalidation(
  baseUrl: string,
  headers: Record<string, string>,
  dataset: string,
  coding: Coding,
  answers: Record<Endpoint, Served>,
): Promise<RevalidationFigures[]> {
  const rows: RevalidationFigures[] = [];
  for (const endpoint of ['list', 'detail'] as const) {
    const { path, etag } = answers[endpoint];
    const again = await get(baseUrl + path, { ...headers, ...(etag ? { 'If-None-Match': etag } : {}) });
    rows.push({ dataset, endpoint, coding, etag, revalidatedStatus: again.status });
  }
  return rows;
}

/** One answer a floor serves: at `path`, the bytes and headers the reference server sent. */
export interface FloorRoute {
  name: string;
  path: string;
  served: Served;
}

/** The routes of one coding's answers, at the paths the reference server answered them. */
export function routesOf(answers: Record<Endpoint, Served>): FloorRoute[] {
  return (['list', 'detail'] as const).map((endpoint) => ({
    name: endpoint,
    path: answers[endpoint].path,
    served: answers[endpoint],
  }));
}

/** Writes the answers where the floors read them. */
export function writeServedBytes(dir: string, served: readonly FloorRoute[]): void {
  mkdirSync(dir, { recursive: true });
  const routes: RouteFile[] = served.map(({ name, path, served: { bytes, contentEncoding, headers } }) => {
    writeFileSync(join(dir, `${name}.body`), bytes);
    return { path, file: `${name}.body`, contentEncoding, headers };
  });
  writeFileSync(join(dir, 'routes.json'), JSON.stringify(routes));
}

/**
 * Checks that a floor sends exactly what the reference server sent: body bytes and coding, and
 * with `sameHeaders` (the Node floor) every header line too.
 */
export async function checkSameBytes(
  floor: ServerChild,
  answers: Record<Endpoint, Served>,
  headers: Record<string, string>,
  sameHeaders: boolean,
): Promise<void> {
  for (const endpoint of ['list', 'detail'] as const) {
    const reference = answers[endpoint];
    const { status, served } = await get(floor.baseUrl + reference.path, headers);
    if (
      status !== 200 ||
      !served.bytes.equals(reference.bytes) ||
      served.contentEncoding !== reference.contentEncoding ||
      (sameHeaders && served.headers.join('\n') !== reference.headers.join('\n'))
    ) {
      throw new Error(`${floor.name} does not serve the reference ${endpoint} bytes (status ${status})`);
    }
  }
}
