/**
 * Isolation between campaigns (§5.1, §4.3 rule 1), on every live collection and its items, both
 * ways, over every exchange of a run or a recording: a collection lists no item of another
 * campaign; an item of one campaign asked with another campaign's key is not found, and no item is
 * answered to keys of two campaigns; and such a 404 cannot be told from an unknown id's.
 *
 * A key's campaign comes from its role (`core/roles.ts`); a recorded key the run does not know is
 * attributed to no campaign. Which campaign holds an item is what the answers say (the collections
 * that listed it, the keys it was served to), so the verdicts are given once every exchange is
 * seen, whatever their order; per item the rules keep a few bits and short strings, never a body.
 */
import { answered, answersAs, errorOf, idsIn, isSuccess, requestLine } from '../core/answers.ts';
import { BodyMemo } from '../core/body-memo.ts';
import { EvidenceTable } from '../core/evidence.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import type { Campaign, KeyName } from '../core/roles.ts';
import { EMPTY_CAMPAIGN_KEY, OTHER_CAMPAIGN_KEY, PRIMARY_KEY, roleOf } from '../core/roles.ts';
import { atTheEndToo } from './requests.ts';
import type { Across, Judgement, Probe, Rule, World } from '../core/rule.ts';
import { breaks, holds, unjudged } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { RuleState, StateTable } from '../core/state.ts';
import { joinBits, sharedBy } from '../core/state.ts';
import { isObject } from '../../spec/json-value.ts';
import { MOCK_CAMPAIGNS, onTargets, readingCampaign } from './auth-readings.ts';
import { fingerprint } from './pairs.ts';

/** What another campaign's item gets: exactly what an unknown item gets (§4.3 rule 1). */
const NOT_FOUND = 'not_found';
const BOLA = ['API1:2023'] as const;
const CAMPAIGNS: readonly Campaign[] = ['primary', 'other', 'empty'];
const BIT: Record<Campaign, number> = { primary: 1, other: 2, empty: 4 };
const campaignsIn = (bits: number) => CAMPAIGNS.filter((c) => (bits & BIT[c]) !== 0);
const named = (bits: number) =>
  campaignsIn(bits)
    .map((c) => `the ${c} campaign`)
    .join(' and ');

/** What the answers say of one item: the campaigns it was listed to, and served to as an item. */
interface Holding {
  listed: number;
  served: number;
}

const joinHoldings = (kept: Holding, other: Holding): Holding => ({
  listed: kept.listed | other.listed,
  served: kept.served | other.served,
});

/** Exchanges kept as evidence of who was listed or served an item (the earliest items'). */
const MAX_HOLDING_EVIDENCE = 1000;

/** The ids a collection's answer lists, by its body: a recording lists the same pages again and again. */
const listedIds = new BodyMemo<string[]>();

/** The collection an exchange belongs to (an item operation's own), and the item ids it answered about. */
function itemsOf(
  obs: Observation,
): { collection: OperationModel; ids: string[]; asItem: boolean } | undefined {
  const op = obs.op;
  if (!op) return undefined;
  const response = obs.exchange.response;
  if (op.kind === 'collection')
    return {
      collection: op,
      ids: obs.bodyless || !response ? [] : listedIds.of(response, () => idsIn(response)),
      asItem: false,
    };
  if (op.kind !== 'item' || !op.collection) return undefined;
  const name = op.pathParameters.at(-1);
  const id = name === undefined ? undefined : obs.params[name];
  return id === undefined ? undefined : { collection: op.collection, ids: [id], asItem: true };
}

type Served = { collection: OperationModel; ids: string[]; asItem: boolean; campaign: Campaign };

/** How an item was answered to a campaign's key: in a listing, or as the item itself. */
type HoldingKind = 'listed' | 'served';

/**
 * Which campaign holds which item, from the answers that served data to a key of a known role: two
 * bits per item (by `collection id`) in a table of the run's state, shared by the isolation rules
 * of a run (each is shown every exchange; the first to be shown one records it), and the earliest
 * exchange that listed or served each of the first items to each campaign, as evidence.
 */
class Holdings {
  private readonly table: StateTable<Holding>;
  private readonly evidence: EvidenceTable;
  private last: { obs: Observation; served: Served | undefined } | undefined;

  constructor(state: RuleState) {
    this.table = state.table<Holding>('ISOLATION holdings', joinHoldings);
    this.evidence = new EvidenceTable(state, 'ISOLATION holdings evidence', MAX_HOLDING_EVIDENCE);
  }

  /** Records what an answer served; returns the items it served and the campaign, when it served any. */
  see(obs: Observation): Served | undefined {
    if (this.last?.obs === obs) return this.last.served;
    const served = this.record(obs);
    this.last = { obs, served };
    return served;
  }

  private record(obs: Observation): Served | undefined {
    const response = obs.exchange.response;
    if (!response || obs.credential.kind !== 'key' || !isSuccess(response.status)) return undefined;
    const items = itemsOf(obs);
    if (!items || (!obs.bodyless && !servedData(response.json))) return undefined;
    const campaign = roleOf(obs.credential.key).campaign;
    const kind: HoldingKind = items.asItem ? 'served' : 'listed';
    for (const id of items.ids) {
      const key = `${items.collection.operationId} ${id}`;
      const holding = this.table.get(key) ?? { listed: 0, served: 0 };
      if ((holding[kind] & BIT[campaign]) === 0) {
        holding[kind] |= BIT[campaign];
        this.table.set(key, holding);
      }
      this.evidence.keep(`${key} ${campaign} ${kind}`, obs);
    }
    return { ...items, campaign };
  }

  of(collection: OperationModel, id: string): Holding {
    return this.table.get(`${collection.operationId} ${id}`) ?? { listed: 0, served: 0 };
  }

  /** The campaigns an item is known to belong to (0: an id no answer showed, an unknown id). */
  owners(collection: OperationModel, id: string): number {
    const holding = this.of(collection, id);
    return holding.listed | holding.served;
  }

  /**
   * The exchange that shows an item answered to the last of these campaigns (in the order primary,
   * other, empty): where an item two campaigns were answered shows the second.
   */
  shownTo(collection: string, id: string, bits: number, kind: HoldingKind): Evidence | undefined {
    const campaign = campaignsIn(bits).at(-1);
    return campaign === undefined ? undefined : this.evidence.get(`${collection} ${id} ${campaign} ${kind}`);
  }

  *entries(): Generator<{ collection: string; id: string; holding: Holding }> {
    for (const [key, holding] of this.table.entries()) {
      const at = key.indexOf(' ');
      yield { collection: key.slice(0, at), id: key.slice(at + 1), holding };
    }
  }
}

/** The one record of holdings of a run, shared by its isolation rules. */
const sharedHoldings = (state: RuleState): Holdings => sharedBy(state, makeHoldings);
const makeHoldings = (state: RuleState) => new Holdings(state);

const servedData = (json: unknown) => isObject(json) && json.ok === true && json.data !== undefined;

/** The requests that list every collection to each campaign's key (the discovery's, shared). */
function listings(op: OperationModel, world: World): Probe[] {
  if (op.kind !== 'collection') return [];
  return [PRIMARY_KEY, OTHER_CAMPAIGN_KEY, EMPTY_CAMPAIGN_KEY].flatMap((key) =>
    onTargets(op, world, { key, via: 'bearer' }),
  );
}

/**
 * Every item of each campaign fetched with its own key, then (phase 2, so a cache keyed by URL
 * alone shows) with the other campaign's key; a few of this campaign's with the empty campaign's.
 */
function crossFetches(op: OperationModel, world: World): Probe[] {
  if (op.kind !== 'item' || !op.collection) return listings(op, world);
  const fetch = (key: KeyName, id: string, phase: 1 | 2): Probe[] => {
    const request = world.request(op, { key, id });
    return request ? [{ request, phase }] : [];
  };
  return [
    ...world
      .sweep(op, 'primary')
      .flatMap((id) => [...fetch(PRIMARY_KEY, id, 1), ...fetch(OTHER_CAMPAIGN_KEY, id, 2)]),
    ...world
      .sweep(op, 'other')
      .flatMap((id) => [...fetch(OTHER_CAMPAIGN_KEY, id, 1), ...fetch(PRIMARY_KEY, id, 2)]),
    ...world.realIds(op).flatMap((id) => fetch(EMPTY_CAMPAIGN_KEY, id, 2)),
  ];
}

/** One item of each campaign, with its own key and the other campaign's: the cross fetches made again at the end. */
function firstCrossFetches(op: OperationModel, world: World): Probe[] {
  if (op.kind !== 'item' || !op.collection) return [];
  const ids = { primary: world.sweep(op, 'primary')[0], other: world.sweep(op, 'other')[0] };
  return (['primary', 'other'] as const).flatMap((campaign) => {
    const id = ids[campaign];
    if (id === undefined) return [];
    return [PRIMARY_KEY, OTHER_CAMPAIGN_KEY].flatMap((key) => {
      const request = world.request(op, { key, id });
      return request ? [{ request }] : [];
    });
  });
}

/** An id no deployment has, asked with each campaign's key: what an unknown item gets. */
function unknownFetches(op: OperationModel, world: World): Probe[] {
  if (op.kind !== 'item' || !op.collection) return [];
  return [PRIMARY_KEY, OTHER_CAMPAIGN_KEY, EMPTY_CAMPAIGN_KEY].flatMap((key) => {
    const request = world.request(op, { key, id: world.unknownId });
    return request ? [{ request, phase: 2 as const }] : [];
  });
}

/** ISOLATION-001: an item listed to the keys of two campaigns. */
function listedAcross(state: RuleState): Across {
  const holdings = sharedHoldings(state);
  const listers = state.table<number>('ISOLATION-001 listers', joinBits);
  return {
    see(obs) {
      const seen = holdings.see(obs);
      if (!seen || seen.asItem) return;
      const collection = seen.collection.operationId;
      const bits = listers.get(collection) ?? 0;
      if ((bits & BIT[seen.campaign]) === 0) listers.set(collection, bits | BIT[seen.campaign]);
    },
    *finish() {
      const alone = new Set<string>();
      for (const { collection, id, holding } of holdings.entries()) {
        if (holding.listed === 0) continue;
        if (campaignsIn(listers.get(collection) ?? 0).length < 2) {
          if (!alone.has(collection))
            yield unjudged(`only one campaign’s key was answered a listing of ${collection}`);
          alone.add(collection);
          continue;
        }
        if (campaignsIn(holding.listed).length < 2) {
          yield holds();
          continue;
        }
        const evidence = holdings.shownTo(collection, id, holding.listed, 'listed');
        yield breaks(`item ${id} is listed to ${named(holding.listed)}${whereListed(evidence)}`, evidence);
      }
    },
  };
}

const whereListed = (obs: Evidence | undefined) => (obs ? ` (${requestLine(obs)})` : '');

/** How a key of another campaign was answered about an item: not found, or what else, and when first. */
interface Answer {
  answer: string;
  seq: number;
}
/** The answers each campaign's key got about an item, by campaign. */
type Asked = Map<Campaign, Answer>;
const NOT_FOUND_ANSWER = 'not found';

/** Of two answers to one campaign: any other answer before not found; the earlier of two others. */
const tellingAnswer = (kept: Answer, other: Answer): Answer => {
  if ((kept.answer === NOT_FOUND_ANSWER) !== (other.answer === NOT_FOUND_ANSWER))
    return kept.answer === NOT_FOUND_ANSWER ? other : kept;
  return other.seq < kept.seq ? other : kept;
};

function joinAsked(kept: Asked, other: Asked): Asked {
  for (const [campaign, answer] of other) {
    const known = kept.get(campaign);
    kept.set(campaign, known ? tellingAnswer(known, answer) : answer);
  }
  return kept;
}

/** Whether an answer is the spec's `not_found` refusal (a recording without bodies: its status). */
function isNotFound(spec: SpecModel, obs: Observation): boolean {
  const response = obs.exchange.response;
  if (!response) return false;
  return obs.bodyless
    ? response.status === spec.statusOfCode(NOT_FOUND)
    : answersAs(spec, response, NOT_FOUND);
}

/** Findings whose exchange is kept as evidence (the earliest). */
const MAX_EVIDENCE = 500;

/** ISOLATION-002: items answered to keys of two campaigns; another campaign's item not found. */
function crossAcross(spec: SpecModel, state: RuleState): Across {
  const holdings = sharedHoldings(state);
  const asked = state.table<Asked>('ISOLATION-002 asked', joinAsked);
  const evidence = new EvidenceTable(state, 'ISOLATION-002 evidence', MAX_EVIDENCE);
  return {
    see(obs) {
      if (holdings.see(obs)) return;
      const campaign = readingCampaign(obs);
      const items = itemsOf(obs);
      const response = obs.exchange.response;
      if (!campaign || !items?.asItem || !response || response.status === 429 || isSuccess(response.status))
        return;
      const [id] = items.ids as [string];
      const key = `${items.collection.operationId} ${id}`;
      const answer = isNotFound(spec, obs)
        ? NOT_FOUND_ANSWER
        : obs.bodyless
          ? `${response.status}`
          : answered(response);
      if (answer !== NOT_FOUND_ANSWER) evidence.keep(`${key} ${campaign}`, obs);
      const entry = asked.get(key) ?? new Map<Campaign, Answer>();
      const known = entry.get(campaign);
      const now = { answer, seq: obs.exchange.seq };
      const telling = known ? tellingAnswer(known, now) : now;
      if (telling === known) return;
      entry.set(campaign, telling);
      asked.set(key, entry);
    },
    *finish() {
      if (spec.statusOfCode(NOT_FOUND) === undefined) {
        yield unjudged(`the spec under test names no "${NOT_FOUND}" error code`);
        return;
      }
      yield* sharedItems(holdings);
      yield* crossAnswers(spec, holdings, asked, evidence);
    },
  };
}

/** Items served as items to a key of one campaign while another campaign's key was listed or served them. */
function* sharedItems(holdings: Holdings): Generator<Judgement> {
  for (const { collection, id, holding } of holdings.entries()) {
    const owners = holding.listed | holding.served;
    if (holding.served === 0 || campaignsIn(owners).length < 2) continue;
    yield breaks(
      `item ${id} is answered to keys of two campaigns: listed to ${named(holding.listed) || 'none'}, served as an item to ${named(holding.served)}`,
      holdings.shownTo(collection, id, holding.served, 'served'),
    );
  }
}

/** What each key of another campaign got for an item some campaign holds: the `not_found` refusal. */
function* crossAnswers(
  spec: SpecModel,
  holdings: Holdings,
  asked: StateTable<Asked>,
  evidence: EvidenceTable,
): Generator<Judgement> {
  for (const [key, answers] of asked.entries()) {
    const at = key.indexOf(' ');
    const collection = spec.operations.find((op) => op.operationId === key.slice(0, at));
    const id = key.slice(at + 1);
    const owners = collection ? holdings.owners(collection, id) : 0;
    if (owners === 0) continue;
    for (const campaign of CAMPAIGNS) {
      const answer = answers.get(campaign)?.answer;
      if (answer === undefined || (owners & BIT[campaign]) !== 0) continue;
      yield answer === NOT_FOUND_ANSWER
        ? holds()
        : breaks(
            `item ${id} of ${named(owners)}, asked with the ${campaign} campaign's key, got ${answer}, not ${spec.statusOfCode(NOT_FOUND)} ${NOT_FOUND}`,
            evidence.get(`${key} ${campaign}`),
          );
    }
  }
}

/** Headers whose presence or value would tell another campaign's item from an unknown id. */
const TELLING_HEADERS = ['content-type', 'cache-control', 'vary', 'www-authenticate', 'content-encoding'];

/** The paths of a JSON value's keys (`error.code`, ...): its shape, without the values. */
function shapeOf(value: unknown, at = ''): string[] {
  if (!isObject(value)) return [`${at}:${Array.isArray(value) ? 'array' : typeof value}`];
  return Object.keys(value)
    .sort()
    .flatMap((key) => shapeOf(value[key], at ? `${at}.${key}` : key));
}

/**
 * What a refusal shows a prober: status, code, message, body shape and the headers that matter. A
 * message may repeat the id it was asked about, which tells nothing, so that id is masked.
 */
function shownAnswer(obs: Observation, id: string): string {
  const response = obs.exchange.response;
  if (!response) return 'no answer';
  const headers = TELLING_HEADERS.map((h) => `${h}=${response.headers[h] ?? '-'}`).join(' ');
  if (obs.bodyless) return `${response.status} (no body recorded) ${headers}`;
  const { code, message } = errorOf(response);
  const masked = typeof message === 'string' ? message.replaceAll(id, '<id>') : message;
  return `${response.status} ${JSON.stringify(code)} ${JSON.stringify(masked)} {${shapeOf(response.json).join(',')}} ${headers}`;
}

/** A shown answer, by its fingerprint: the text and the earliest entry that showed it. */
interface Shown {
  text: string;
  seq: number;
}

/** One item operation, one key, one item: the refusals it got (fingerprints of their shown answers). */
interface Refused {
  op: string;
  key: KeyName;
  id: string;
  shown: Set<string>;
}

const joinRefused = (kept: Refused, other: Refused): Refused => {
  for (const shown of other.shown) kept.shown.add(shown);
  return kept;
};

/** ISOLATION-003: per item operation and key, the refusals of other campaigns' items against unknown ids'. */
function indistinguishableAcross(spec: SpecModel, state: RuleState): Across {
  const holdings = sharedHoldings(state);
  const shown = state.table<Shown>('ISOLATION-003 shown', (kept, other) =>
    other.seq < kept.seq ? other : kept,
  );
  const refused = state.table<Refused>('ISOLATION-003 refused', joinRefused);
  const evidence = new EvidenceTable(state, 'ISOLATION-003 evidence', MAX_EVIDENCE);
  return {
    see(obs) {
      if (holdings.see(obs)) return;
      const items = itemsOf(obs);
      const response = obs.exchange.response;
      if (!items?.asItem || !obs.op || !readingCampaign(obs) || obs.credential.kind !== 'key' || !response)
        return;
      if (response.status === 429 || response.status < 400) return;
      const [id] = items.ids as [string];
      const text = shownAnswer(obs, id);
      const print = fingerprint(text);
      if (!shown.get(print)) {
        shown.set(print, { text, seq: obs.exchange.seq });
        evidence.keep(print, obs);
      }
      const key = JSON.stringify([obs.op.operationId, obs.credential.key, id]);
      const entry = refused.get(key) ?? {
        op: obs.op.operationId,
        key: obs.credential.key,
        id,
        shown: new Set(),
      };
      if (entry.shown.has(print)) return;
      entry.shown.add(print);
      refused.set(key, entry);
    },
    finish: () => comparedWithUnknown(spec, holdings, refused, shown, evidence),
  };
}

/** Each refusal of another campaign's item against what unknown ids got with the same key. */
function* comparedWithUnknown(
  spec: SpecModel,
  holdings: Holdings,
  refused: StateTable<Refused>,
  shown: StateTable<Shown>,
  evidence: EvidenceTable,
): Generator<Judgement> {
  const unknown = new Map<string, Set<string>>();
  const crossing: (Refused & { group: string })[] = [];
  for (const [, entry] of refused.entries()) {
    const op = spec.operations.find((o) => o.operationId === entry.op);
    if (!op?.collection) continue;
    const owners = holdings.owners(op.collection, entry.id);
    const group = `${entry.op} ${entry.key}`;
    if (owners === 0) {
      const seen = unknown.get(group) ?? new Set<string>();
      for (const print of entry.shown) seen.add(print);
      unknown.set(group, seen);
    } else if ((owners & BIT[roleOf(entry.key).campaign]) === 0) {
      crossing.push({ ...entry, group });
    }
  }
  const textOf = (print: string) => shown.get(print)?.text ?? '';
  const earliest = (prints: Set<string>) =>
    [...prints].sort((a, b) => (shown.get(a)?.seq ?? 0) - (shown.get(b)?.seq ?? 0))[0] ?? '';
  for (const { group, id, key, shown: got } of crossing) {
    const baseline = unknown.get(group);
    if (!baseline) {
      yield unjudged(`no unknown id was asked with $${key} on the same operation`);
      continue;
    }
    for (const print of [...got].sort()) {
      yield baseline.has(print)
        ? holds()
        : breaks(
            `item ${id} (asked with $${key}): ${textOf(print)}; an unknown id: ${textOf(earliest(baseline))}`,
            evidence.get(print),
          );
    }
  }
}

/** What every isolation rule declares: a second campaign's key is what shows isolation. */
const ISOLATION = {
  area: 'isolation',
  level: 'required',
  owasp: BOLA,
  needs: [OTHER_CAMPAIGN_KEY],
  mock: MOCK_CAMPAIGNS,
  unit: 'items',
} as const;

/** A live collection, or a live item of one. */
const collectionOrItem = (op: OperationModel) =>
  op.live && (op.kind === 'collection' || (op.kind === 'item' && op.collection !== undefined));

export const isolationRules: Rule[] = [
  {
    ...ISOLATION,
    id: 'ISOLATION-001',
    section: '§5.1, §4.2',
    title: "A collection lists none of another campaign's items (both ways)",
    expected: "each campaign's key is listed its own campaign's items only",
    hint: 'Scope every query to the key’s campaign.',
    appliesTo: (op) => op.live && op.kind === 'collection',
    plan: (op, world) => [...listings(op, world), ...atTheEndToo(listings(op, world))],
    across: { judge: (ctx) => listedAcross(ctx.state) },
  },
  {
    ...ISOLATION,
    id: 'ISOLATION-002',
    section: '§4.3 rule 1, §5.1',
    title:
      "An item of one campaign asked with another campaign's key is not found (both ways); no item is answered to keys of two campaigns",
    expected:
      "404 not_found for every item asked with another campaign's key; no item served to keys of two campaigns",
    hint: 'Look items up within the key’s campaign only: another campaign’s item is not found, exactly like an unknown id.',
    appliesTo: collectionOrItem,
    sweeps: true,
    plan: (op, world) => [...crossFetches(op, world), ...atTheEndToo(firstCrossFetches(op, world))],
    across: { judge: (ctx) => crossAcross(ctx.spec, ctx.state) },
  },
  {
    ...ISOLATION,
    id: 'ISOLATION-003',
    section: '§4.3 rule 1',
    title:
      "Those 404s, both ways, are indistinguishable from an unknown id's (status, code, message, body shape, headers)",
    expected: 'the same answer as for a random unknown id asked with the same key',
    hint: 'Answer another campaign’s item exactly as an item that does not exist: same status, code, message, body and headers.',
    appliesTo: collectionOrItem,
    sweeps: true,
    plan: (op, world) => [...crossFetches(op, world), ...unknownFetches(op, world)],
    across: { judge: (ctx) => indistinguishableAcross(ctx.spec, ctx.state) },
  },
];
