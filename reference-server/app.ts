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
import { CanvassingDay, SHOWCASE_WALKS } from '../fixtures/canvassing-day.ts';
import { type Dataset, demoCredentials } from '../fixtures/index.ts';
import { WALKS_READ_SCOPE } from '../spec/facts.ts';
import { Keyring } from './auth/keyring.ts';
import { type Authorizer, authorizer } from './auth/require-key.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { resolveConfig, type ServerConfig } from './config.ts';
import { errorHandler, noSuchEndpoint } from './error-handler.ts';
import { walksHotPath } from './hot-path.ts';
import { WalkRepository, type WalkSource } from './repository.ts';
import { ClockedWalks } from './clock/clocked-walks.ts';
import { SandboxClock } from './clock/sandbox-clock.ts';
import { sandboxClockRouter } from './routes/sandbox-clock.ts';
import { drainRequestBody } from './request-body.ts';
import { commonHeaders } from './envelope.ts';
import { requestContext, requireHost } from './request-context.ts';
import { plannedRouter } from './routes/planned.ts';
import { referenceDocsRouter } from './routes/reference-docs.ts';
import { walksRouter } from './routes/walks.ts';
import { turbulence } from './turbulence.ts';
import { variantAnswers } from './variants/answers.ts';
import { variantDataset } from './variants/dataset.ts';
import { DEFAULT_VARIANT } from './variants/variant.ts';

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
 * front of it. Both share one repository and authorizer. Left out (every request goes through
 * the app) when `config.hotPath` is false, a rate limit is set, or a variant, latency or faults
 * are on: those are the app's to apply.
 */
export function createRequestListener(options: AppOptions): RequestListener {
  const services = servicesOf(options);
  const app = expressApp(services);
  const { settings, repository, authorize, limiter } = services;
  const plain = settings.variant === DEFAULT_VARIANT && !settings.turbulence && !limiter && !settings.clock;
  if (!settings.hotPath || !plain) return app;
  const hot = walksHotPath({ repository, authorize, log: settings.log });
  return (req, res) => hot(req, res) || app(req, res);
}

interface Services {
  settings: ServerConfig;
  /** What the reference page's samples and the partner files are filled in with. */
  partnerDemo: {
    sampleWalkId: string | undefined;
    demoWalks: { withStops: string[]; empty: string | undefined };
    demoKeys: Readonly<Record<string, string>>;
  };
  repository: WalkRepository;
  /** What the routes serve: the repository, or the walks at the clock's instant. */
  walks: WalkSource;
  clock: SandboxClock | undefined;
  authorize: Authorizer;
  limiter: RateLimiter | undefined;
}

function servicesOf({ dataset, config }: AppOptions): Services {
  const settings = resolveConfig(config);
  const { variant } = settings;
  const limiter = settings.rateLimit ? new RateLimiter(settings.rateLimit) : undefined;
  const keyring = new Keyring(dataset.apiKeys);
  const arrangement = { order: variant.order, centroid: variant.centroid };
  const repository = new WalkRepository(variantDataset(dataset, variant), settings.webBaseUrl, arrangement);
  const clock = settings.clock ? new SandboxClock(settings.clock) : undefined;
  // Each instant's details are built when first asked for: most of them never are.
  const repositoryAt = (data: Dataset) =>
    new WalkRepository(variantDataset(data, variant), settings.webBaseUrl, {
      ...arrangement,
      eagerDetailStops: 0,
    });
  return {
    settings,
    repository,
    walks: clock ? new ClockedWalks(new CanvassingDay(dataset), clock, repositoryAt) : repository,
    clock,
    authorize: authorizer(keyring, WALKS_READ_SCOPE, limiter, variant.bothHeaders),
    limiter,
    partnerDemo: partnerDemoOf(dataset),
  };
}

/** The first listed walk with stops of the primary campaign, and the data set's demo keys. */
function partnerDemoOf(dataset: Dataset): Services['partnerDemo'] {
  const primary = dataset.campaigns[0]?.id;
  const sample = dataset.walks.find(
    (walk) => walk.campaignId === primary && walk.state === 'active' && walk.stops.length > 0,
  );
  // The showcase walks of the primary campaign, which the canvassing day never archives.
  const showcase = dataset.walks
    .filter((walk) => walk.campaignId === primary)
    .slice(0, SHOWCASE_WALKS)
    .filter((walk) => walk.state === 'active');
  return {
    sampleWalkId: sample?.id,
    demoWalks: {
      withStops: showcase.filter((walk) => walk.stops.length > 0).map((walk) => walk.id),
      empty: showcase.find((walk) => walk.stops.length === 0)?.id,
    },
    demoKeys: demoCredentials({ seed: dataset.seed }),
  };
}

function expressApp({ settings, walks, clock, authorize, partnerDemo }: Services): Express {
  const { variant } = settings;
  const app = express();
  // Settings first: the app's router reads them when it is created.
  app.set('case sensitive routing', true); // D-PATH-UNKNOWN
  app.set('strict routing', false); // one trailing slash tolerated
  app.disable('x-powered-by');
  app.disable('etag'); // our ETags are precomputed per body

  const sending = { gzip: variant.compression === 'gzip', validators: variant.caching === 'etag' };
  app.use(requestContext(settings.log, commonHeaders(sending)));
  if (clock) app.use(sandboxClockRouter(clock)); // reads its own body: before bodies are drained
  app.use(drainRequestBody());
  app.use(requireHost);
  if (settings.turbulence) app.use(turbulence(settings.turbulence));
  app.use(
    walksRouter({
      repository: walks,
      authorize,
      steering: settings.steering,
      badLimit: variant.badLimit === 'clamp' ? 'clamp' : 'refuse',
      sending,
    }),
  );
  app.use(plannedRouter());
  app.use(referenceDocsRouter({ specPath: settings.specPath, docsPath: settings.docsPath, ...partnerDemo }));
  app.use(noSuchEndpoint);
  app.use(errorHandler(settings.log, variantAnswers(variant)));
  return app;
}
