/**
 * The reference implementation of the Canvassing Read API as an Express 5 app. `createApp` builds
 * it and never listens; `createRequestListener` puts the hot path in front of it for the servers
 * that listen (`start.ts`).
 *
 * Order of the checks (D-AUTH-ORDER): unknown path → method → planned → key → scope → parameters →
 * resource. Every answer is the JSON envelope.
 */
import type { RequestListener } from 'node:http';
import express, { type Express } from 'express';
import type { Dataset } from '../fixtures/index.ts';
import { Keyring } from './auth/keyring.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { resolveConfig, type ServerConfig } from './config.ts';
import { errorHandler, noSuchEndpoint } from './error-handler.ts';
import { walksHotPath } from './hot-path.ts';
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

/** The Express app alone: every request goes through its one pipeline. */
export function createApp(options: AppOptions): Express {
  return expressApp(servicesOf(options));
}

/**
 * What a server listens with: the app, with the hot path for the two successful live answers in
 * front of it (unless `config.hotPath` is false or a rate limit is set). Both share one
 * repository and keyring.
 */
export function createRequestListener(options: AppOptions): RequestListener {
  const services = servicesOf(options);
  const app = expressApp(services);
  const { settings, repository, keyring, limiter } = services;
  if (!settings.hotPath || limiter) return app;
  const hot = walksHotPath({ repository, keyring, log: settings.log });
  return (req, res) => hot(req, res) || app(req, res);
}

interface Services {
  settings: ServerConfig;
  repository: WalkRepository;
  keyring: Keyring;
  limiter: RateLimiter | undefined;
}

function servicesOf({ dataset, config }: AppOptions): Services {
  const settings = resolveConfig(config);
  return {
    settings,
    repository: new WalkRepository(dataset, settings.webBaseUrl),
    keyring: new Keyring(dataset.apiKeys),
    limiter: settings.rateLimit ? new RateLimiter(settings.rateLimit) : undefined,
  };
}

function expressApp({ settings, repository, keyring, limiter }: Services): Express {
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
  app.use(errorHandler(settings.log));
  return app;
}
