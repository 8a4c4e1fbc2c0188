/**
 * The data the checks share: the lists (default limit, limit=1, limit=200), the detail of every
 * listed walk (or of `--sample N` walks chosen by the seed), the other campaign's list, and the
 * cross-campaign fetches. Everything is fetched lazily and once (the client memoizes identical
 * GETs), so checks that judge the same walk share one request.
 */
import { randomUUID } from 'node:crypto';
import { LIMIT, walkPath, WALKS_PATH } from '../spec/facts.ts';
import { isObject } from '../spec/json-value.ts';
import type { WalkDetail, WalkSummary } from '../spec/types.ts';
import type { HttpClient } from './client.ts';
import type { TargetProfile } from './target.ts';
import { OTHER, PRIMARY } from './key-uses.ts';
import type { Exchange, KeyUse, SuiteConfig } from './types.ts';

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

/** The records one sweep judges, of how many there were. */
export interface Sweep {
  walks: WalkSummary[];
  of: number;
}

/** A small seeded generator (mulberry32): the same seed draws the same values on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The largest limit the spec allows: the one list that shows every walk a client can see. */
export const FULL_LIMIT = `${LIMIT.name}=${LIMIT.maximum}`;

export class SuiteData {
  /** An id no deployment has: the baseline for every "not found" comparison. */
  readonly unknownId = randomUUID();
  /** How many walks the full list showed, once it answered (for the coverage section). */
  listed?: number;
  /** Set under `--sample N` when the primary sweep judged fewer walks than the list showed. */
  sampled?: { n: number; of: number };

  private readonly client: HttpClient;
  private readonly config: SuiteConfig;
  /** How this target is asked for the answers the checks judge. */
  readonly profile: TargetProfile;

  constructor(client: HttpClient, config: SuiteConfig, profile: TargetProfile) {
    this.client = client;
    this.config = config;
    this.profile = profile;
  }

  async list(
    query?: string,
    auth: KeyUse | KeyUse[] = PRIMARY,
    headers?: Record<string, string>,
  ): Promise<ListView> {
    const spec: Parameters<HttpClient['send']>[0] = { path: WALKS_PATH, auth };
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

  async list200(): Promise<ListView> {
    const view = await this.list(FULL_LIMIT);
    if (view.walks) this.listed = view.walks.length;
    return view;
  }

  /**
   * The other campaign's full list, asked after this campaign's: a cache keyed by URL alone then
   * serves this campaign's walks to the other key, where the isolation checks see it.
   */
  async otherList200(): Promise<ListView> {
    await this.list200();
    return this.list(FULL_LIMIT, OTHER);
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
   * The walks whose details the suite judges: every listed walk, or under `--sample N` the first
   * empty walk, the first walk without coordinates and the largest walk (the edge cases), then walks
   * drawn by the seed. Only walks the target can serve (a mock serves only the spec's examples).
   */
  async sample(): Promise<WalkSummary[]> {
    return (await this.primarySweep()).walks;
  }

  async primarySweep(): Promise<Sweep> {
    const walks = ((await this.walks()) ?? []).filter((w) => isObject(w) && typeof w.id === 'string');
    const sweep = this.sweepOf(walks.filter((w) => this.profile.detailHeaders(w.id) !== undefined));
    if (sweep.walks.length < sweep.of) this.sampled = { n: sweep.walks.length, of: sweep.of };
    return sweep;
  }

  /** The other campaign's listed walks (or a seeded sample of them). */
  async otherSweep(): Promise<Sweep> {
    const walks = ((await this.otherList200()).walks ?? []).filter(
      (w) => isObject(w) && typeof w.id === 'string',
    );
    return this.sweepOf(walks);
  }

  private sweepOf(pool: WalkSummary[]): Sweep {
    const size = Math.min(this.config.sample ?? pool.length, pool.length);
    if (size === pool.length) return { walks: pool, of: pool.length };
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
    const random = seededRandom(this.config.seed);
    const rest = pool.filter((w) => !chosen.has(w.id));
    while (chosen.size < size && rest.length > 0) {
      add(rest.splice(Math.floor(random() * rest.length), 1)[0]);
    }
    return { walks: [...chosen.values()], of: pool.length };
  }

  async sampledDetails(): Promise<SampledWalk[]> {
    const sample = await this.sample();
    return Promise.all(sample.map(async (summary) => ({ summary, view: await this.detail(summary.id) })));
  }

  /**
   * This campaign's walks asked for with the other campaign's key, each after its own detail was
   * fetched with this key (so a cache keyed by URL alone shows itself).
   */
  async crossDetails(): Promise<SampledWalk[]> {
    const mine = await this.sample();
    return Promise.all(
      mine.map(async (summary) => {
        await this.detail(summary.id);
        return { summary, view: await this.detail(summary.id, OTHER) };
      }),
    );
  }

  /** The other campaign's walks asked for with this key, after the other key fetched each. */
  async reverseCrossDetails(): Promise<SampledWalk[]> {
    const theirs = (await this.otherSweep()).walks;
    return Promise.all(
      theirs.map(async (summary) => {
        await this.detail(summary.id, OTHER);
        return { summary, view: await this.detail(summary.id, PRIMARY) };
      }),
    );
  }
}
