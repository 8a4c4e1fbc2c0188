/**
 * The contract and its reference page, without a key: `GET /openapi.yaml` (the spec file itself),
 * `GET /docs` (the page `npm run docs:build` renders; 503 in the envelope until it exists) and
 * `GET /`, which redirects to `/docs`.
 */
import { readFile } from 'node:fs/promises';
import { Router } from 'express';
import { sendBytes } from '../envelope.ts';
import { ApiError, DOCS_NOT_BUILT } from '../errors.ts';
import { methodNotAllowed } from './method-not-allowed.ts';

const HTML = 'text/html; charset=utf-8';
const TO_DOCS = Buffer.from(
  '<!doctype html><title>Canvassing Read API</title><a href="/docs">API reference</a>\n',
);

export interface ReferenceDocsOptions {
  specPath: string;
  docsPath: string;
}

export function referenceDocsRouter({ specPath, docsPath }: ReferenceDocsOptions): Router {
  const router = Router({ caseSensitive: true, strict: false });

  router
    .route('/openapi.yaml')
    .get(async (_req, res) => {
      const spec = await readFile(specPath);
      sendBytes(res, 200, ['Content-Type', 'application/yaml; charset=utf-8'], spec);
    })
    .all(methodNotAllowed);

  // A browser opening the server's address lands on the reference page.
  router
    .route(/^\/$/) // exactly `/`: `//` stays an unknown path
    .get((_req, res) => sendBytes(res, 302, ['Location', '/docs', 'Content-Type', HTML], TO_DOCS))
    .all(methodNotAllowed);

  router
    .route('/docs')
    .get(async (_req, res) => {
      const page = await readFile(docsPath).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (!page) throw new ApiError(DOCS_NOT_BUILT);
      sendBytes(res, 200, ['Content-Type', HTML], page);
    })
    .all(methodNotAllowed);

  return router;
}
