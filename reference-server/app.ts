/**
 * The reference implementation of the Canvassing Read API as an Express 5 app. `createApp` builds
 * it and never listens (`start.ts` and `main.ts` do that).
 *
 * Order of the checks (D-AUTH-ORDER): unknown path → method → planned → key → scope → parameters →
 * resource. Every answer is the JSON envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import type { Dataset } from '../fixtures/index.ts';
import { Keyring } from './auth/keyring.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { resolveConfig, type ServerConfig } from './config.ts';
import { errorHandler, noSuchEndpoint } from './error-handler.ts';
import { walksFastLane } from './fast-lane.ts';
import { WalkRepository } from './repository.ts';
import { drainRequestBody } from './request-body.ts';
import { requestContext } from './request-context.ts';
import { plannedRouter } from './routes/planned.ts';
import { referenceDocsRouter } from './routes/reference-docs.ts';
import { walksRouter } from './routes/walks.ts';

export type { ServerConfig } from './config.ts';

export interface AppOptions {
  dataset: Dataset;
  config?: Partial<ServerConfig>;
}

export function createApp({ dataset, config }: AppOptions): Express {
  const settings = resolveConfig(config);
  const repository = new WalkRepository(dataset, settings.webBaseUrl);
  const keyring = new Keyring(dataset.apiKeys);
  const limiter = settings.rateLimit ? new RateLimiter(settings.rateLimit) : undefined;

  const app = express();
  // Settings first: the app's router reads them when it is created.
  app.set('case sensitive routing', true); // D-PATH-UNKNOWN
  app.set('strict routing', false); // one trailing slash tolerated
  app.disable('x-powered-by');
  app.disable('etag'); // our ETags are precomputed per body

  app.use(requestContext(settings.log));
  app.use(drainRequestBody());
  app.use(walksRouter({ repository, keyring, ...(limiter ? { limiter } : {}) }));
  app.use(plannedRouter());
  app.use(referenceDocsRouter({ specPath: settings.specPath, docsPath: settings.docsPath }));
  app.use(noSuchEndpoint);
  const onError = errorHandler(settings.log);
  app.use(onError);

  if (settings.fastLane) {
    // `app(req, res)` and a parent app mounting this one both dispatch through `app.handle`
    // (Express 5, lib/express.js and lib/application.js): the fast lane goes in front of it.
    const fastLane = walksFastLane({
      repository,
      keyring,
      log: settings.log,
      onError,
      ...(limiter ? { limiter } : {}),
    });
    const dispatch = app as Express & { handle: Handle };
    const expressHandle = dispatch.handle.bind(app);
    dispatch.handle = (req, res, next) => {
      if (!fastLane(req, res)) expressHandle(req, res, next);
    };
  }
  return app;
}

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;
