/**
 * The contract, its reference page and the partner files, without a key: `GET /openapi.yaml`,
 * `/openapi.json`, `/docs` (the page `npm run docs:build` renders), `/postman/collection.json`,
 * `/postman/environment.json`, `/requests.http`, the decision log at `/DECISIONS.md` and the
 * planned endpoints at `/planned.openapi.yaml`; `GET /` redirects to `/docs`. A file not built yet
 * gets 503 in the envelope.
 *
 * The built files name the sandbox as the spec's first server (`http://127.0.0.1:8080`), the
 * spec's example walk in the detail samples and `__CONFORMANCE_API_KEY__`-style stand-ins for the
 * demo keys. Each is served with this server's own origin, a walk of its own data and its own demo
 * keys in their place, so whatever `--host`, `--port` or `--seed` it runs with, what a partner
 * copies from it runs against it as written.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { type RequestHandler, Router } from 'express';
import { sendBytes } from '../envelope.ts';
import { ApiError, DOCS_NOT_BUILT, PARTNER_FILE_NOT_BUILT } from '../errors.ts';
import { firstServerUrlOf, PARTNER_FILE_NAMES } from '../spec-files.ts';
import type { PartnerFiles } from '../config.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

const HTML = 'text/html; charset=utf-8';
const YAML = 'application/yaml; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const TO_DOCS = Buffer.from(
  '<!doctype html><title>Canvassing Read API</title><a href="/docs">API reference</a>\n',
);

export interface ReferenceDocsOptions {
  specPath: string;
  docsPath: string;
  /** A walk of the primary campaign that has stops: the detail samples' id. */
  sampleWalkId?: string;
  /** Walks of the primary campaign that stay all day: the page's example walks become these. */
  demoWalks?: { withStops: readonly string[]; empty: string | undefined };
  /** The demo keys by their contract names, for the stand-ins in the partner files. */
  demoKeys?: Readonly<Record<string, string>>;
  /**
   * An id of its own data for each item path template drawn from the schema
   * (`/api/v1/lists/{id}`): the page's samples of that path are sent to it.
   */
  sampleItemIds?: Readonly<Record<string, string>>;
  /** An id of its own data for each item operation's stand-in (`EXAMPLE_ID_GET_LIST`). */
  exampleIds?: Readonly<Record<string, string>>;
  /** The partner files made from the served spec, in place of the built ones. */
  partnerFiles?: PartnerFiles | undefined;
}

/** What a served file's stand-ins become for one request. */
interface Localization {
  builtOrigin: string;
  origin: string;
  sampleWalkId: string | undefined;
  sampleItemIds?: Readonly<Record<string, string>> | undefined;
  demoKeys: Readonly<Record<string, string>>;
}

export function referenceDocsRouter(options: ReferenceDocsOptions): Router {
  const { specPath, docsPath } = options;
  const router = Router({ caseSensitive: true, strict: false });
  const builtOrigin = firstServerUrlOf(specPath);
  const localized = (req: IncomingMessage): Localization => ({
    builtOrigin,
    origin: originOf(req, builtOrigin),
    sampleWalkId: options.sampleWalkId,
    sampleItemIds: options.sampleItemIds,
    demoKeys: { ...options.exampleIds, ...options.demoKeys },
  });
  const built = dirname(docsPath);
  const serve = (path: string, file: string, type: string, made?: string) =>
    router
      .route(path)
      .get(async (req, res) => {
        const text = made ?? (await readIfThere(file));
        const missing = PARTNER_FILE_NOT_BUILT;
        if (text === undefined) throw new ApiError(missing);
        sendBytes(res, 200, ['Content-Type', type], Buffer.from(localize(text, localized(req))));
      })
      .all(methodNotAllowed);

  serve('/openapi.yaml', specPath, YAML);
  router
    .route('/openapi.json')
    .get(async (req, res) => {
      const json = await specAsJson(specPath);
      sendBytes(res, 200, ['Content-Type', JSON_TYPE], Buffer.from(localize(json, localized(req))));
    })
    .all(methodNotAllowed);
  router
    .route('/docs')
    .get(async (req, res) => {
      const text = await readIfThere(docsPath);
      if (text === undefined) throw new ApiError(DOCS_NOT_BUILT);
      const page = withDemoWalks(text, await exampleWalksOf(specPath), options.demoWalks);
      sendBytes(res, 200, ['Content-Type', HTML], Buffer.from(localize(page, localized(req))));
    })
    .all(methodNotAllowed);
  const made = options.partnerFiles;
  serve('/postman/collection.json', join(built, PARTNER_FILE_NAMES.collection), JSON_TYPE, made?.collection);
  serve(
    '/postman/environment.json',
    join(built, PARTNER_FILE_NAMES.environment),
    JSON_TYPE,
    made?.environment,
  );
  serve('/requests.http', join(built, PARTNER_FILE_NAMES.http), 'text/plain; charset=utf-8', made?.http);
  // The documents the page links to: why each open point was decided, and what is coming.
  serve('/DECISIONS.md', join(dirname(specPath), 'DECISIONS.md'), 'text/markdown; charset=utf-8');
  serve('/planned.openapi.yaml', join(dirname(specPath), 'planned.openapi.yaml'), YAML);

  // The page's sidebar links name its sections as paths (`/section/errors`) and route them as
  // fragments once the page runs (`/docs#/section/errors`): a link opened in a new tab is sent
  // there. Only the links the built page holds, so no other path stops being unknown.
  // A middleware, not a route: a route on any path would make Express answer OPTIONS everywhere.
  router.use(pageLinkRedirects(docsPath));

  // A browser opening the server's address lands on the reference page.
  router
    .route(/^\/$/) // exactly `/`: `//` stays an unknown path
    .get((_req, res) => sendBytes(res, 302, ['Location', '/docs', 'Content-Type', HTML], TO_DOCS))
    .all(methodNotAllowed);

  return router;
}

function pageLinkRedirects(docsPath: string): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const links = await pageLinksOf(docsPath);
    if (!links.has(req.path)) return next();
    const target = `/docs#${req.path}`;
    sendBytes(
      res,
      302,
      ['Location', target, 'Content-Type', HTML],
      Buffer.from(`<a href="${target}">API reference</a>\n`),
    );
  };
}

/**
 * The page's examples name the spec's example walks, which this server does not hold: each is
 * replaced by one of its own walks (an empty one for the empty example), so an id copied from the
 * page is found here.
 */
function withDemoWalks(
  page: string,
  examples: readonly { id: string; count: number }[],
  demo: ReferenceDocsOptions['demoWalks'],
): string {
  if (!demo) return page;
  const withStops = [...demo.withStops];
  let out = page;
  for (const example of examples) {
    const real = example.count === 0 ? demo.empty : withStops.shift();
    if (real) out = out.replaceAll(example.id, real);
  }
  return out;
}

/** The example walks of the spec's walk summary (`components.schemas.WalkSummary.examples`). */
let examplesCache: { yaml: string; walks: { id: string; count: number }[] } | undefined;
async function exampleWalksOf(specPath: string): Promise<{ id: string; count: number }[]> {
  const yaml = await readFile(specPath, 'utf8');
  if (examplesCache?.yaml !== yaml) {
    const { parse } = await import('yaml');
    const doc = parse(yaml) as { components?: { schemas?: Record<string, { examples?: unknown[] }> } };
    const examples = doc.components?.schemas?.WalkSummary?.examples ?? [];
    examplesCache = { yaml, walks: examples as { id: string; count: number }[] };
  }
  return examplesCache.walks;
}

/** The page's in-page links (`href="/section/…"`, the tags' paths), read again when the page changes. */
let linkCache: { modified: number; links: ReadonlySet<string> } | undefined;
async function pageLinksOf(docsPath: string): Promise<ReadonlySet<string>> {
  const modified = (await stat(docsPath).catch(() => undefined))?.mtimeMs ?? 0;
  if (linkCache?.modified !== modified) {
    const page = (await readIfThere(docsPath)) ?? '';
    const links = new Set<string>();
    for (const [, href] of page.matchAll(/href="(\/[A-Za-z0-9/_-]+)"/g)) links.add(href as string);
    linkCache = { modified, links };
  }
  return linkCache.links;
}

async function readIfThere(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/** The spec as JSON, parsed again only when the file changes (YAML is loaded on first use). */
let jsonCache: { yaml: string; json: string } | undefined;
async function specAsJson(specPath: string): Promise<string> {
  const yaml = await readFile(specPath, 'utf8');
  if (jsonCache?.yaml !== yaml) {
    const { parse } = await import('yaml');
    jsonCache = { yaml, json: `${JSON.stringify(parse(yaml), null, 2)}\n` };
  }
  return jsonCache.json;
}

/**
 * A `Host` header a browser or HTTP client sends: a DNS name or IPv4 address, or an IPv6 literal in
 * brackets, and a port. Anything else (it is the client's to choose) is not echoed into a page.
 */
const HOST_SHAPE =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

/**
 * The origin the client reached this server at: `http://` and its `Host` header, which is what a
 * partner typed (`localhost:8081`) and works from where they are; the address the connection came
 * in on when the header is unusable; the built origin as a last resort.
 */
function originOf(req: IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  if (host && HOST_SHAPE.test(host)) return `http://${host}`;
  const { localAddress, localPort } = req.socket;
  if (!localAddress || !localPort) return fallback;
  const address = localAddress.replace(/^::ffff:(?=\d+\.)/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

/** The built origin, the example walk of the samples and the demo-key stand-ins, replaced. */
function localize(
  text: string,
  { builtOrigin, origin, sampleWalkId, sampleItemIds = {}, demoKeys }: Localization,
): string {
  let out = text;
  for (const [template, id] of Object.entries(sampleItemIds)) {
    // The samples' URL of an item path (`/api/v1/lists/{id}`), its example id replaced by one of this server's.
    const collection = template.slice(0, template.lastIndexOf('/{'));
    const itemUrl = new RegExp(`${escapeRegExp(builtOrigin + collection)}/[^/?#'"\\\\\\s]+`, 'g');
    out = out.replace(itemUrl, `${origin}${collection}/${encodeURIComponent(id)}`);
  }
  if (sampleWalkId) {
    // Only the detail samples' URLs: the spec's examples keep their ids (they are the mock's answers).
    const walkUrl = new RegExp(`${escapeRegExp(builtOrigin)}(/api/v[0-9]+/walks/)[0-9a-fA-F-]{36}`, 'g');
    out = out.replace(walkUrl, (_match, path: string) => `${origin}${path}${sampleWalkId}`);
  }
  out = out.replaceAll(builtOrigin, origin);
  const standIns: Record<string, string | undefined> = { ...demoKeys, SAMPLE_WALK_ID: sampleWalkId };
  return out.replace(/__([A-Z][A-Z0-9_]*)__/g, (match, name: string) => standIns[name] ?? match);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
