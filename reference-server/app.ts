/**
 * The reference implementation of the Canvassing Read API as an Express 5 app. `createApp` builds
 * it and never listens (`start.ts` listens with it): one pipeline for every request, one error
 * handler after the routes.
 *
 * Order of the checks (D-AUTH-ORDER): unknown path → method → planned → key → scope → parameters →
 * resource. Every answer is the JSON envelope.
 */
import express, { type Express } from 'express';
import { CanvassingDay, SHOWCASE_WALKS } from '../fixtures/canvassing-day.ts';
import { type Dataset, demoCredentials } from '../fixtures/index.ts';
import { Keyring } from './auth/keyring.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { ClockedWalks } from './clock/clocked-walks.ts';
import { SandboxClock } from './clock/sandbox-clock.ts';
import { resolveConfig, type ServerConfig } from './config.ts';
import { cursorCodec } from './cursor.ts';
import { commonHeaders } from './envelope.ts';
import { errorHandler, noSuchEndpoint } from './error-handler.ts';
import { ITEM_NOT_FOUND } from './errors.ts';
import { requestLogger } from './log.ts';
import { WalkRepository, type WalkSource } from './repository.ts';
import { drainRequestBody } from './request-body.ts';
import { requestContext, requireHost } from './request-context.ts';
import { plannedRouter } from './routes/planned.ts';
import { referenceDocsRouter } from './routes/reference-docs.ts';
import { exampleIdStandIn } from './spec-files.ts';
import { sandboxClockRouter } from './routes/sandbox-clock.ts';
import { operationsRouter, schemaDataAnswer, type ServedRoute } from './routes/operations.ts';
import { walkRoute } from './routes/walks.ts';
import { PROJECT_OPERATIONS, type ServedOperation, WALK_OPERATION_PATHS } from './served-operations.ts';
import type { SchemaResources } from './served-spec.ts';
import { turbulence } from './turbulence.ts';
import { variantAnswers } from './variants/answers.ts';
import { variantDataset } from './variants/dataset.ts';

export interface AppOptions {
  dataset: Dataset;
  config?: Partial<ServerConfig>;
  /**
   * What is served: the live operations of a spec (default: the project's) and, for those the
   * project has no generator for, their data drawn from the schema (`served-spec.ts`).
   */
  served?: { operations: readonly ServedOperation[]; resources?: SchemaResources };
}

export function createApp({ dataset, config, served }: AppOptions): Express {
  const settings = resolveConfig(config);
  const { variant } = settings;
  const limiter = settings.rateLimit ? new RateLimiter(settings.rateLimit) : undefined;
  const arrangement = { order: variant.order, centroid: variant.centroid };
  const clock = settings.clock ? new SandboxClock(settings.clock) : undefined;
  // On the clock, each instant's details are built when first asked for: most of them never are.
  const repositoryOf = (data: Dataset, eagerDetailStops?: number) =>
    new WalkRepository(variantDataset(data, variant), settings.webBaseUrl, {
      ...arrangement,
      ...(eagerDetailStops === undefined ? {} : { eagerDetailStops }),
    });
  const repository = clock
    ? new ClockedWalks(new CanvassingDay(dataset), clock, (data) => repositoryOf(data, 0))
    : repositoryOf(dataset);
  const routes = servedRoutes(served ?? { operations: PROJECT_OPERATIONS }, repository);

  const app = express();
  // Settings first: the app's router reads them when it is created.
  app.set('case sensitive routing', true); // D-PATH-UNKNOWN
  app.set('strict routing', false); // one trailing slash tolerated
  app.disable('x-powered-by');
  app.disable('etag'); // our ETags are precomputed per body

  const sending = { gzip: variant.compression === 'gzip', validators: variant.caching === 'etag' };
  app.use(requestContext(commonHeaders(sending)));
  if (settings.log) app.use(requestLogger(settings.log));
  if (clock) app.use(sandboxClockRouter(clock)); // reads its own body: before bodies are drained
  app.use(drainRequestBody());
  app.use(requireHost);
  if (settings.turbulence) app.use(turbulence(settings.turbulence));
  const badLimit = variant.badLimit === 'clamp' ? 'clamp' : 'refuse';
  app.use(
    operationsRouter({
      routes,
      keyring: new Keyring(dataset.apiKeys),
      limiter,
      bothHeaders: variant.bothHeaders,
      badLimit,
      sending,
      steering: settings.steering,
      cursors: cursorCodec(`cursor:${dataset.seed}`),
    }),
  );
  app.use(plannedRouter());
  const demo = partnerDemoOf(dataset);
  app.use(
    referenceDocsRouter({
      specPath: settings.specPath,
      docsPath: settings.docsPath,
      ...demo,
      exampleIds: exampleIdsOf(routes, served?.resources),
      sampleItemIds: sampleItemIdsOf(routes, served?.resources),
      partnerFiles: settings.partnerFiles,
    }),
  );
  app.use(noSuchEndpoint);
  app.use(errorHandler(variantAnswers(variant)));
  return app;
}

/** Each served operation with its answers: the walks' own, or its data drawn from the schema. */
function servedRoutes(
  { operations, resources }: NonNullable<AppOptions['served']>,
  walks: WalkSource,
): ServedRoute[] {
  return operations.map((op) => {
    if (WALK_OPERATION_PATHS.has(op.path)) return walkRoute(op, walks);
    if (!resources) throw new Error(`no data to serve ${op.operationId} with`);
    return { op, answer: schemaDataAnswer(op, resources), notFound: ITEM_NOT_FOUND };
  });
}

/** An id of the primary campaign's data for each item operation drawn from its schema, by stand-in name. */
function exampleIdsOf(routes: readonly ServedRoute[], resources?: SchemaResources): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const { op } of routes) {
    const id = op.kind === 'item' ? resources?.exampleId(op.operationId) : undefined;
    if (id !== undefined) ids[exampleIdStandIn(op.operationId).slice(2, -2)] = id;
  }
  return ids;
}

/** An id of the primary campaign's data for each item path drawn from its schema: the page's samples name it. */
function sampleItemIdsOf(
  routes: readonly ServedRoute[],
  resources?: SchemaResources,
): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const { op } of routes) {
    const id = op.kind === 'item' ? resources?.exampleId(op.operationId) : undefined;
    if (id !== undefined) ids[op.path] = id;
  }
  return ids;
}

/**
 * What the reference page's samples and the partner files are filled in with: the first listed
 * walk with stops of the primary campaign, the showcase walks the page's examples become (which
 * the canvassing day never archives), and the data set's demo keys.
 */
function partnerDemoOf(dataset: Dataset) {
  const primary = dataset.campaigns[0]?.id;
  const sample = dataset.walks.find(
    (walk) => walk.campaignId === primary && walk.state === 'active' && walk.stops.length > 0,
  );
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
