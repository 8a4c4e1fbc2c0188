/**
 * What a live run learns before its rules plan: every live collection of the spec asked once per
 * campaign key at its largest page, so the rules can name real items (to fetch, to ask for with
 * another campaign's key, to refuse). It also says how this target is asked as each key role: a
 * deployment with the keys themselves, a Prism mock with `Prefer` headers where a key cannot show it.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { resolveRef } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import { unknownIdOf } from '../core/ids.ts';
import type { Ask, ListedItem, World } from '../core/rule.ts';
import type { Campaign, KeyName, Via } from '../core/roles.ts';
import { EMPTY_CAMPAIGN_KEY, NO_SCOPE_KEY, OTHER_CAMPAIGN_KEY, PRIMARY_KEY } from '../core/roles.ts';
import { pathOf, type OperationModel, type SpecModel } from '../core/spec-model.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import type { Exchange, RequestSpec } from '../core/exchange.ts';

/** Credentials and headers of a request, without its path. */
type RequestCredentials = Pick<RequestSpec, 'auth' | 'headers'>;
import { seededRandom } from '../core/seeded.ts';
import { type NearMiss, nearMissOf } from '../core/near-miss.ts';

const CAMPAIGN_KEYS: Record<Campaign, KeyName> = {
  primary: PRIMARY_KEY,
  other: OTHER_CAMPAIGN_KEY,
  empty: EMPTY_CAMPAIGN_KEY,
};

/** The request that lists a collection's largest page (the `limit` maximum when it has one). */
function fullPage(op: OperationModel): Pick<RequestSpec, 'path' | 'query'> {
  return op.limit ? { path: op.path, query: `${op.limit.name}=${op.limit.maximum}` } : { path: op.path };
}

export class LiveWorld implements World {
  readonly unknownId = unknownIdOf();
  /** Set under `--sample N` when a sweep judged fewer items than the collection listed. */
  sampled?: { n: number; of: number };
  /** Every sweep of an item operation: how many items it fetches of how many were listed. */
  private readonly sweeps = new Map<string, { op: OperationModel; n: number; of: number }>();
  private readonly lists = new Map<string, readonly ListedItem[]>();
  private readonly mockExamples: MockExamples | undefined;

  readonly spec: SpecModel;
  private readonly config: Pick<
    SuiteConfig,
    'keys' | 'seed' | 'sample' | 'profile' | 'depth' | 'allowDestructive'
  >;

  constructor(
    spec: SpecModel,
    config: Pick<SuiteConfig, 'keys' | 'seed' | 'sample' | 'profile' | 'depth' | 'allowDestructive'>,
  ) {
    this.spec = spec;
    this.config = config;
    this.mockExamples = config.profile === 'mock' ? mockExamplesOf(spec) : undefined;
  }

  get seed(): number {
    return this.config.seed;
  }

  get profile(): 'live' | 'mock' {
    return this.config.profile;
  }

  get depth(): 'default' | 'full' {
    return this.config.depth ?? 'default';
  }

  get allowDestructive(): boolean {
    return this.config.allowDestructive === true;
  }

  has(key: KeyName): boolean {
    return this.config.keys[key] !== undefined;
  }

  /**
   * The requests that discover what each collection lists to each campaign's key; `learn` reads
   * their answers. Sent before any rule's requests (phase 0).
   */
  discoveryRequests(): { op: OperationModel; campaign: Campaign; request: RequestSpec }[] {
    const found: { op: OperationModel; campaign: Campaign; request: RequestSpec }[] = [];
    for (const op of this.spec.live) {
      if (op.kind !== 'collection') continue;
      for (const campaign of ['primary', 'other', 'empty'] as const) {
        const asking = this.askingFor(CAMPAIGN_KEYS[campaign], 'bearer', op);
        if (asking) found.push({ op, campaign, request: { ...fullPage(op), ...asking } });
      }
    }
    return found;
  }

  /** Remembers what a discovery request's answer listed. */
  learn(op: OperationModel, campaign: Campaign, exchange: Exchange): void {
    const data = (exchange.response?.json as { ok?: unknown; data?: unknown } | undefined)?.data;
    const ok = exchange.response?.status === 200 && Array.isArray(data);
    const items = ok
      ? (data as unknown[]).flatMap((item) =>
          isObject(item) && typeof item.id === 'string' ? [{ id: item.id, summary: item }] : [],
        )
      : [];
    this.lists.set(`${op.operationId} ${campaign}`, items);
  }

  listed(op: OperationModel, campaign: Campaign): readonly ListedItem[] {
    return this.lists.get(`${op.operationId} ${campaign}`) ?? [];
  }

  sweep(op: OperationModel, campaign: 'primary' | 'other'): readonly string[] {
    const collection = op.kind === 'item' ? op.collection : op;
    if (!collection) return [];
    const pool = this.listed(collection, campaign).filter(
      (item) => op.kind !== 'item' || this.itemHeaders(op, item.id) !== undefined,
    );
    const size = Math.min(this.config.sample ?? pool.length, pool.length);
    if (op.kind === 'item')
      this.sweeps.set(`${op.operationId} ${campaign}`, { op, n: size, of: pool.length });
    if (size === pool.length) return pool.map((item) => item.id);
    if (campaign === 'primary') this.sampled = { n: size, of: pool.length };
    return sampleOf(pool, size, this.config.seed).map((item) => item.id);
  }

  /** What the sweeps of the item operations a rule applies to fetch, of how many listed items. */
  swept(applies: (op: OperationModel) => boolean): { n: number; of: number } | undefined {
    const sweeps = [...this.sweeps.values()].filter(({ op }) => applies(op));
    if (sweeps.length === 0) return undefined;
    return sweeps.reduce((sum, { n, of }) => ({ n: sum.n + n, of: sum.of + of }), { n: 0, of: 0 });
  }

  realIds(op: OperationModel): readonly string[] {
    const ids = this.sweep(op, 'primary');
    const picks = [ids[0], ids[Math.floor(ids.length / 2)], ids.at(-1)].filter((id): id is string => !!id);
    return picks.length > 0 ? [...new Set(picks)] : [this.unknownId];
  }

  request(op: OperationModel, ask: Ask): RequestSpec | undefined {
    const via = ask.via ?? 'bearer';
    let asking: RequestCredentials = {};
    if (ask.key) {
      const found = ask.nearMiss
        ? this.hasNearMiss(ask.key, ask.nearMiss)
          ? { auth: { key: ask.key, via, nearMiss: ask.nearMiss } }
          : undefined
        : this.askingFor(ask.key, via, op);
      if (!found) return undefined;
      asking = withShape(found, ask);
    }
    let path = ask.path;
    let itemHeaders: Record<string, string> | undefined = {};
    if (path === undefined) {
      if (op.kind === 'item') {
        const id = ask.id ?? this.realIds(op)[0] ?? this.unknownId;
        itemHeaders = this.itemHeaders(op, id);
        if (!itemHeaders) return undefined;
        path = pathOf(op, id);
      } else {
        path = pathOf(op);
      }
    }
    const headers = { ...itemHeaders, ...asking.headers, ...ask.headers };
    const request: RequestSpec = { path };
    if (asking.auth) request.auth = asking.auth;
    if (Object.keys(headers).length > 0) request.headers = headers;
    if (ask.madeUp) request.madeUpKey = ask.madeUp;
    if (ask.query !== undefined) request.query = ask.query;
    if (ask.method) request.method = ask.method;
    if (ask.body !== undefined) request.body = ask.body;
    return request;
  }

  /** Whether this edit of a configured key differs from the key (a body without letters has no case to flip). */
  private hasNearMiss(key: KeyName, miss: NearMiss): boolean {
    const value = this.config.keys[key];
    return value !== undefined && nearMissOf(value, miss) !== undefined;
  }

  /**
   * How to ask as a key on an operation: the key itself; on a mock, the key's placeholder with the
   * `Prefer` header that makes Prism serve what that key would get (a 403, an empty list). The
   * request carries the key it stands for, so the rules judge its answer as that key's.
   */
  askingFor(key: KeyName, via: Via, op: OperationModel | undefined): RequestCredentials | undefined {
    if (!this.has(key)) return undefined;
    const mock = this.mockExamples;
    const own = { auth: { key, via } } as const;
    if (!mock || key === PRIMARY_KEY) return own;
    if (key === NO_SCOPE_KEY) return { ...own, headers: { Prefer: 'code=403' } };
    if (key === EMPTY_CAMPAIGN_KEY) {
      if (op?.kind === 'item') return { ...own, headers: { Prefer: 'code=404' } };
      const empty = op ? mock.emptyExample.get(op.operationId) : undefined;
      return empty ? { ...own, headers: { Prefer: `example=${empty}` } } : undefined;
    }
    return own;
  }

  itemHeaders(op: OperationModel, id: string): Record<string, string> | undefined {
    const mock = this.mockExamples;
    if (!mock) return {};
    const name = mock.itemExample.get(op.operationId)?.get(id);
    if (name !== undefined) return { Prefer: `example=${name}` };
    return id === this.unknownId ? { Prefer: 'code=404' } : undefined;
  }
}

/** The credentials of `asking` in the shape `ask` wants (another scheme, the key without its prefix). */
function withShape(asking: RequestCredentials, ask: Ask): RequestCredentials {
  const auth = asking.auth;
  if (!auth || Array.isArray(auth) || (ask.scheme === undefined && ask.dropPrefix === undefined))
    return asking;
  return {
    ...asking,
    auth: {
      ...auth,
      ...(ask.scheme !== undefined ? { scheme: ask.scheme } : {}),
      ...(ask.dropPrefix !== undefined ? { dropPrefix: ask.dropPrefix } : {}),
    },
  };
}

/** Under `--sample N`: the edge cases first (an empty item, one with a null field, the largest), then seeded draws. */
function sampleOf(pool: readonly ListedItem[], size: number, seed: number): ListedItem[] {
  const chosen = new Map<string, ListedItem>();
  const add = (item: ListedItem | undefined) => {
    if (item && chosen.size < size) chosen.set(item.id, item);
  };
  const countOf = (item: ListedItem) =>
    typeof item.summary.count === 'number' ? item.summary.count : undefined;
  add(pool.find((item) => countOf(item) === 0));
  add(pool.find((item) => (countOf(item) ?? 1) > 0 && Object.values(item.summary).some((v) => v === null)));
  add(
    pool.reduce<ListedItem | undefined>(
      (big, item) => ((countOf(item) ?? -1) > (big ? (countOf(big) ?? -1) : -1) ? item : big),
      undefined,
    ),
  );
  const random = seededRandom(seed);
  const rest = pool.filter((item) => !chosen.has(item.id));
  while (chosen.size < size && rest.length > 0) add(rest.splice(Math.floor(random() * rest.length), 1)[0]);
  return [...chosen.values()];
}

interface MockExamples {
  /** Collection operation → the name of its example with an empty `data`. */
  emptyExample: Map<string, string>;
  /** Item operation → item id → the name of the example that serves it. */
  itemExample: Map<string, Map<string, string>>;
}

/** What a Prism mock of this spec serves on `Prefer: example=NAME`, read from the 200 examples. */
function mockExamplesOf(spec: SpecModel): MockExamples {
  const emptyExample = new Map<string, string>();
  const itemExample = new Map<string, Map<string, string>>();
  for (const op of spec.live) {
    const response = op.definition.responses?.['200'];
    if (!response) continue;
    const examples =
      resolveRef<OpenAPIV3_1.ResponseObject>(spec.doc, response).content?.['application/json']?.examples ??
      {};
    for (const [name, ref] of Object.entries(examples)) {
      const value = resolveRef<OpenAPIV3_1.ExampleObject>(spec.doc, ref).value as { data?: unknown };
      if (op.kind === 'collection' && Array.isArray(value?.data) && value.data.length === 0) {
        if (!emptyExample.has(op.operationId)) emptyExample.set(op.operationId, name);
      }
      if (op.kind === 'item' && isObject(value?.data) && typeof value.data.id === 'string') {
        const ids = itemExample.get(op.operationId) ?? new Map<string, string>();
        ids.set(value.data.id, name);
        itemExample.set(op.operationId, ids);
      }
    }
  }
  return { emptyExample, itemExample };
}
