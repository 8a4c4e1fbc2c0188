/**
 * The data the checks share: the lists (default limit, limit=1, limit=200), a sensible sample of
 * walk details, the other campaign's list. Everything is fetched lazily and once (the client
 * memoizes identical GETs), so a run costs a few dozen requests, not one per walk.
 */
import { randomUUID } from 'node:crypto';
import type { WalkDetail, WalkSummary } from '../spec/types.ts';
import type { HttpClient } from './client.ts';
import type { TargetProfile } from './target.ts';
import type { Exchange, KeyUse, SuiteConfig } from './types.ts';

export const LIST_PATH = '/api/v1/walks';
export const walkPath = (id: string): string => `${LIST_PATH}/${encodeURIComponent(id)}`;

export const PRIMARY: KeyUse = { key: 'CONFORMANCE_API_KEY', via: 'bearer' };
export const PRIMARY_X_API_KEY: KeyUse = { key: 'CONFORMANCE_API_KEY', via: 'x-api-key' };
export const OTHER: KeyUse = { key: 'CONFORMANCE_OTHER_CAMPAIGN_KEY', via: 'bearer' };

export interface ListView {
  exchange: Exchange;
  /** Present when the body is a success envelope with a `data` array (items not yet validated). */
  walks?: WalkSummary[];
}

export interface DetailView {
  exchange: Exchange;
  /** Present when the body is a success envelope whose `data` is an object. */
  walk?: WalkDetail;
}

export interface SampledWalk {
  summary: WalkSummary;
  view: DetailView;
}

export class SuiteData {
  /** An id no deployment has: the baseline for every "not found" comparison. */
  readonly unknownId = randomUUID();

  constructor(
    private readonly client: HttpClient,
    private readonly config: SuiteConfig,
    /** How this target is asked for the answers the checks judge. */
    readonly profile: TargetProfile,
  ) {}

  async list(
    query?: string,
    auth: KeyUse | KeyUse[] = PRIMARY,
    headers?: Record<string, string>,
  ): Promise<ListView> {
    const spec: Parameters<HttpClient['send']>[0] = { path: LIST_PATH, auth };
    if (query !== undefined) spec.query = query;
    if (headers) spec.headers = headers;
    const exchange = await this.client.send(spec);
    const body = exchange.response?.json as { ok?: unknown; data?: unknown } | undefined;
    const view: ListView = { exchange };
    if (exchange.response?.status === 200 && body?.ok === true && Array.isArray(body.data)) {
      view.walks = body.data as WalkSummary[];
    }
    return view;
  }

  listDefault(): Promise<ListView> {
    return this.list();
  }

  list1(): Promise<ListView> {
    return this.list('limit=1');
  }

  list200(): Promise<ListView> {
    return this.list('limit=200');
  }

  otherList200(): Promise<ListView> {
    return this.list('limit=200', OTHER);
  }

  /** The largest list seen: limit=200, or the default list when limit=200 failed. */
  async walks(): Promise<WalkSummary[] | undefined> {
    return (await this.list200()).walks ?? (await this.listDefault()).walks;
  }

  async detail(
    id: string,
    auth: KeyUse | KeyUse[] = PRIMARY,
    headers?: Record<string, string>,
  ): Promise<DetailView> {
    const needed = this.profile.detailHeaders(id);
    const allHeaders = needed && Object.keys(needed).length > 0 ? { ...needed, ...headers } : headers;
    const spec: Parameters<HttpClient['send']>[0] = { path: walkPath(id), auth };
    if (allHeaders) spec.headers = allHeaders;
    const exchange = await this.client.send(spec);
    const body = exchange.response?.json as { ok?: unknown; data?: unknown } | undefined;
    const view: DetailView = { exchange };
    if (exchange.response?.status === 200 && body?.ok === true && isObject(body.data)) {
      view.walk = body.data as WalkDetail;
    }
    return view;
  }

  /**
   * The walks whose details the suite fetches: the first empty walk, the first walk without
   * coordinates and the largest walk (the edge cases), then the first, the last and walks spread
   * evenly between.
   * Only walks the target can serve (a mock serves only the spec's detail examples).
   */
  async sample(): Promise<WalkSummary[]> {
    const walks = ((await this.walks()) ?? []).filter((w) => isObject(w) && typeof w.id === 'string');
    const pool = walks.filter((w) => this.profile.detailHeaders(w.id) !== undefined);
    const size = this.config.sample ?? pool.length;
    const chosen = new Map<string, WalkSummary>();
    const add = (walk: WalkSummary | undefined) => {
      if (walk && chosen.size < size) chosen.set(walk.id, walk);
    };
    add(pool.find((w) => w.count === 0));
    add(pool.find((w) => typeof w.count === 'number' && w.count > 0 && w.lat === null));
    add(
      pool.reduce<WalkSummary | undefined>(
        (big, w) => (Number(w.count) > Number(big?.count ?? -1) ? w : big),
        undefined,
      ),
    );
    const spread = Math.max(2, size - chosen.size);
    for (let i = 0; i < spread && pool.length > 0; i++) {
      add(pool[Math.round((i * (pool.length - 1)) / (spread - 1))]);
    }
    for (const walk of pool) add(walk);
    return [...chosen.values()];
  }

  async sampledDetails(): Promise<SampledWalk[]> {
    const sample = await this.sample();
    return Promise.all(sample.map(async (summary) => ({ summary, view: await this.detail(summary.id) })));
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
