/**
 * How the catalogue's rules judge: a trick breaks a refusal when its answer grants what the refusal
 * withheld, and nothing else counts against it (any refusal, any status without data, a redirect,
 * a 404, an error page, a 429). What it may grant:
 * - data: a success that carries data, to credentials the route refuses;
 * - existence: statuses that tell an item that exists from one that does not, where the refusal
 *   itself answers both alike (HEAD without a key: 200 here, 404 there);
 * - another campaign's item: a reading key served an item only another campaign's keys were served;
 * - links elsewhere (host and forwarding headers): a link whose origin no plain answer has, nor
 *   the configured web base URL.
 *
 * The verdicts wait for the whole source, so they do not depend on the order exchanges came in,
 * and keep a few facts per item, group or origin, never a body. Requests without a key are judged
 * only once a key header shows somewhere: a recording that shows none may be a sanitized export.
 */
import { describe, idsIn, isSuccess } from '../../core/answers.ts';
import { isUnknownId } from '../../core/ids.ts';
import type { Observation } from '../../core/observation.ts';
import type { OwaspCategory } from '../../core/owasp.ts';
import type { Campaign } from '../../core/roles.ts';
import { roleOf } from '../../core/roles.ts';
import type { Across, AcrossContext, Judgement, RuleContext } from '../../core/rule.ts';
import { breaks, holds, unjudged } from '../../core/rule.ts';
import type { StateTable } from '../../core/state.ts';
import { isObject } from '../../../spec/json-value.ts';
import { carriesData, HeldVerdicts, NO_KEY_HEADER_RECORDED } from '../auth-readings.ts';
import type { Family } from './catalogue.ts';
import { FAMILIES, SOURCES } from './catalogue.ts';
import type { Seen } from './recognise.ts';
import { recognise } from './recognise.ts';
import type { Refusal, Target } from './targets.ts';
import { refusalOf } from './targets.ts';

/** Rate limiting says nothing of a trick: such an answer is not compared. */
const TOO_MANY_REQUESTS = 429;
/** Items, groups and origins kept per verdict (a recording can hold millions of exchanges). */
const MAX_KEPT = 2000;
/** Findings whose exchange is kept as evidence. */
const MAX_EVIDENCE = 500;

const CAMPAIGNS: readonly Campaign[] = ['primary', 'other', 'empty'];
const BIT: Record<Campaign, number> = { primary: 1, other: 2, empty: 4 };
const campaignsIn = (bits: number) => CAMPAIGNS.filter((c) => (bits & BIT[c]) !== 0);

/** How a finding names its trick: the trick, its family and where it comes from. */
export function trickLine(seen: Pick<Seen, 'family' | 'label' | 'transform'>): string {
  const sources = seen.transform?.sources.map((source) => SOURCES[source].name).join('; ');
  return `${seen.label} (${FAMILIES[seen.family].title}${sources ? `; ${sources}` : ''})`;
}

/** How a finding names a route: `GET /api/v1/walks/{id}`. */
const routeLine = (target: Target) => `${target.method} ${target.template}`;

/** The curl line that reproduces an exchange, keys as variables. */
const reproduce = (obs: Observation) => `reproduce: ${obs.exchange.request.curl}`;

/** The trick's answer, judged for data withheld by the refusal. */
function dataVerdict(obs: Observation, seen: Seen, refusal: Refusal): Judgement | undefined {
  const response = obs.exchange.response;
  if (!response) return undefined;
  if (!isSuccess(response.status)) return holds(obs);
  if (obs.bodyless && obs.exchange.request.method.toUpperCase() !== 'HEAD')
    return unjudged(
      'a trick was answered 2xx; the recording holds no body to tell whether it served data',
      obs,
    );
  if (!carriesData(response)) return holds(obs);
  return breaks(
    `${trickLine(seen)} broke the refusal of ${refusal.kind} on ${routeLine(seen.target)}: answered ${describe(response)}; ${reproduce(obs)}`,
    obs,
    undefined,
    refusal.owasp,
  );
}

/** Statuses of a few items each, by whether they exist. */
class Existence {
  private readonly byId = new Map<string, Set<number>>();
  first?: Observation;

  add(id: string, status: number, obs: Observation): void {
    this.first ??= obs;
    const known = this.byId.get(id);
    if (known) known.add(status);
    else if (this.byId.size < 16) this.byId.set(id, new Set([status]));
  }

  /** The statuses of items that exist, and of ids the suite made up to name none. */
  split(exists: (id: string) => boolean): { real: Set<number>; unknown: Set<number> } {
    const real = new Set<number>();
    const unknown = new Set<number>();
    for (const [id, statuses] of this.byId) {
      const into = isUnknownId(id) ? unknown : exists(id) ? real : undefined;
      for (const status of statuses) into?.add(status);
    }
    return { real, unknown };
  }
}

const disjoint = (a: Set<number>, b: Set<number>) =>
  a.size > 0 && b.size > 0 && [...a].every((status) => !b.has(status));
const statusesLine = (statuses: Set<number>) => [...statuses].sort().join(' or ');

/** The origins of the links an answer's data carries (absolute http(s) URLs, at any depth). */
function linkOrigins(value: unknown, into: Set<string>, depth = 0): Set<string> {
  if (depth > 8) return into;
  if (typeof value === 'string') {
    if (/^https?:\/\//i.test(value) && URL.canParse(value)) into.add(new URL(value).origin);
  } else if (Array.isArray(value)) {
    for (const item of value) linkOrigins(item, into, depth + 1);
  } else if (isObject(value)) {
    for (const item of Object.values(value)) linkOrigins(item, into, depth + 1);
  }
  return into;
}

/** The campaign of a reading key, when the request carried one configured key that reads. */
function readingCampaignOf(obs: Observation): Campaign | undefined {
  if (obs.credential.kind !== 'key') return undefined;
  const role = roleOf(obs.credential.key);
  return role.valid && role.scoped ? role.campaign : undefined;
}

/** A map that stops growing at `MAX_KEPT` entries: a recording can hold millions of exchanges. */
function kept<V>(map: Map<string, V>, key: string, make: () => V): V | undefined {
  const known = map.get(key);
  if (known) return known;
  if (map.size >= MAX_KEPT) return undefined;
  const made = make();
  map.set(key, made);
  return made;
}

/**
 * The verdicts of one family's rule over a whole source: data to a refusal, existence told, another
 * campaign's item served, and (host and forwarding headers) links that point elsewhere.
 */
export const familyAcross = (family: Family, ctx: AcrossContext): Across => new FamilyVerdicts(family, ctx);

class FamilyVerdicts implements Across {
  private readonly keyless: HeldVerdicts;
  private readonly keyed: HeldVerdicts;
  /** Why answers were left unjudged, with how many: a table of the run's state, summed across shards. */
  private readonly notJudged: StateTable<number>;
  /** Whether any exchange showed a key header (one record, `''`), across shards. */
  private readonly keysShown: StateTable<boolean>;
  /** Which campaigns plain answers listed or served each item to: `item route id` → bits. */
  private readonly owners = new Map<string, number>();
  /** Items a trick served to a reading key: `item route id` → the campaigns, and the first exchange. */
  private readonly servedByTrick = new Map<string, { bits: number; obs: Observation; seen: Seen }>();
  /** Statuses per trick, refusal and route; and per refusal and route without a trick. */
  private readonly tricked = new Map<string, { existence: Existence; seen: Seen; refusal: Refusal }>();
  private readonly plain = new Map<string, Existence>();
  /** The origins of links in plain answers, and the origins trick answers showed. */
  private readonly plainOrigins = new Set<string>();
  private readonly trickOrigins = new Map<string, { origins: Set<string>; obs: Observation; seen: Seen }>();

  private readonly family: Family;
  private readonly ctx: RuleContext;

  constructor(family: Family, ctx: AcrossContext) {
    this.family = family;
    this.ctx = ctx;
    this.keyless = new HeldVerdicts(ctx.state, `${ctx.ruleId} keyless`);
    this.keyed = new HeldVerdicts(ctx.state, `${ctx.ruleId} keyed`);
    this.notJudged = ctx.state.table<number>(`${ctx.ruleId} not judged`, (a, b) => a + b);
    this.keysShown = ctx.state.table<boolean>(`${ctx.ruleId} keys shown`, (a, b) => a || b);
  }

  see(obs: Observation): void {
    const { kind } = obs.credential;
    if (kind !== 'none' && kind !== 'unseen' && !this.keysShown.get('')) this.keysShown.set('', true);
    const { aim, tricks } = recognise(this.ctx.spec, obs);
    if (tricks.length === 0) this.seePlain(obs, aim);
    for (const seen of tricks) {
      if (seen.family !== this.family || seen.target.kind === 'send') continue;
      const refusal = refusalOf(obs, seen.target);
      if (refusal === 'reading') {
        const campaign = readingCampaignOf(obs);
        if (campaign) this.seeReading(obs, seen, campaign);
      } else if (refusal) this.seeRefused(obs, seen, refusal);
    }
  }

  finish(): Judgement[] {
    const judgements: Judgement[] = [...this.keyed.release()];
    if (this.keyless.size > 0) {
      if (!this.keysShown.get('') && this.ctx.source === 'traffic')
        judgements.push(
          unjudged(`${this.keyless.size} answers to tricks without a key: ${NO_KEY_HEADER_RECORDED}`),
        );
      else judgements.push(...this.keyless.release());
    }
    for (const [reason, n] of this.notJudged.entries())
      judgements.push(unjudged(n > 1 ? `${reason} (${n} answers)` : reason));
    for (const { existence, seen, refusal } of this.tricked.values()) {
      const route = itemRoute(seen.target);
      const exists = (id: string) => this.owners.has(`${route} ${id}`);
      const refused = this.plain.get(`${refusal.kind} ${seen.target.template}`);
      const verdict = existenceVerdict(existence, refused, exists, seen, refusal);
      if (verdict) judgements.push(verdict);
    }
    judgements.push(...ownershipVerdicts(this.servedByTrick, this.owners));
    if (this.family === 'host')
      judgements.push(...linkVerdicts(this.trickOrigins, this.plainOrigins, this.ctx.webBaseUrl));
    return judgements;
  }

  /** An answer without a trick: who holds which item, the links it shows, what a refusal answers. */
  private seePlain(obs: Observation, aim: { target: Target; id?: string } | undefined): void {
    const response = obs.exchange.response;
    if (!response || !aim) return;
    const campaign = readingCampaignOf(obs);
    if (campaign && isSuccess(response.status) && aim.target.kind === 'operation') {
      const ids = aim.id !== undefined ? [aim.id] : obs.bodyless ? [] : idsIn(response);
      for (const id of ids) {
        const key = `${itemRoute(aim.target)} ${id}`;
        if (this.owners.has(key) || this.owners.size < MAX_KEPT)
          this.owners.set(key, (this.owners.get(key) ?? 0) | BIT[campaign]);
      }
      if (!obs.bodyless && this.plainOrigins.size < 64) linkOrigins(response.json, this.plainOrigins);
      return;
    }
    const refusal = refusalOf(obs, aim.target);
    if (!refusal || refusal === 'reading' || !aim.target.item || aim.id === undefined) return;
    if (response.status === TOO_MANY_REQUESTS) return;
    const key = `${refusal.kind} ${aim.target.template}`;
    kept(this.plain, key, () => new Existence())?.add(aim.id, response.status, obs);
  }

  /** A trick's answer to a key that reads: the items it served, and (host headers) its links. */
  private seeReading(obs: Observation, seen: Seen, campaign: Campaign): void {
    const response = obs.exchange.response;
    if (!response || !isSuccess(response.status) || obs.bodyless || !carriesData(response)) return;
    if (seen.target.kind !== 'operation') return;
    for (const id of seen.id !== undefined ? [seen.id] : idsIn(response)) {
      const key = `${itemRoute(seen.target)} ${id}`;
      const entry = kept(this.servedByTrick, key, () => ({ bits: 0, obs, seen }));
      if (entry) entry.bits |= BIT[campaign];
    }
    if (this.family === 'host') {
      const origins = linkOrigins(response.json, new Set());
      const key = `${seen.label} ${[...origins].sort().join(' ')}`;
      kept(this.trickOrigins, key, () => ({ origins, obs, seen }));
    }
  }

  /** A trick's answer to credentials the route refuses: data, and statuses by the item's existence. */
  private seeRefused(obs: Observation, seen: Seen, refusal: Refusal): void {
    const response = obs.exchange.response;
    if (!response) return;
    if (seen.target.item && seen.id !== undefined && response.status !== TOO_MANY_REQUESTS) {
      const key = `${seen.label} ${obs.exchange.request.method} ${refusal.kind} ${seen.target.template}`;
      const group = kept(this.tricked, key, () => ({ existence: new Existence(), seen, refusal }));
      group?.existence.add(seen.id, response.status, obs);
    }
    const verdict = dataVerdict(obs, seen, refusal);
    if (verdict?.verdict === 'unjudged')
      this.notJudged.set(verdict.reason, (this.notJudged.get(verdict.reason) ?? 0) + 1);
    else (obs.credential.kind === 'none' ? this.keyless : this.keyed).add(verdict, obs);
  }
}

/** The collection an item belongs to and the item route itself share owners: keyed by the item's route. */
function itemRoute(target: Target): string {
  const op = target.op;
  if (!op) return target.template;
  return op.kind === 'collection' ? (op.items[0]?.path ?? op.path) : op.path;
}

/** Statuses that tell items that exist from one that does not, where the refusal alone does not. */
function existenceVerdict(
  tricked: Existence,
  plain: Existence | undefined,
  exists: (id: string) => boolean,
  seen: Seen,
  refusal: Refusal,
): Judgement | undefined {
  const { real, unknown } = tricked.split(exists);
  if (real.size === 0 || unknown.size === 0) return undefined;
  if (!disjoint(real, unknown)) return holds(tricked.first);
  const refused = plain?.split(exists);
  if (refused && disjoint(refused.real, refused.unknown)) return holds(tricked.first);
  const itself =
    refused && refused.real.size > 0 ? `; the refusal itself answers ${statusesLine(refused.real)}` : '';
  const obs = tricked.first;
  return breaks(
    `${trickLine(seen)} tells which items exist on ${routeLine(seen.target)} with ${refusal.kind}: ${statusesLine(real)} for items that exist, ${statusesLine(unknown)} for one that does not${itself}${obs ? `; ${reproduce(obs)}` : ''}`,
    obs,
    undefined,
    refusal.owasp,
  );
}

/**
 * Items a trick served to a reading key, judged against the campaigns plain answers gave them to:
 * one verdict per trick, and a finding per item served to a campaign that does not hold it.
 */
function ownershipVerdicts(
  served: Map<string, { bits: number; obs: Observation; seen: Seen }>,
  owners: Map<string, number>,
): Judgement[] {
  const judgements: Judgement[] = [];
  const held = new Map<string, Observation>();
  const broken = new Set<string>();
  let evidence = 0;
  for (const [key, { bits, obs, seen }] of served) {
    const owned = owners.get(key) ?? 0;
    const strangers = campaignsIn(bits).filter((campaign) => owned !== 0 && (owned & BIT[campaign]) === 0);
    if (strangers.length === 0) {
      if (!held.has(seen.label)) held.set(seen.label, obs);
      continue;
    }
    broken.add(seen.label);
    const item = key.slice(key.lastIndexOf(' ') + 1);
    judgements.push(
      breaks(
        `${trickLine(seen)} served ${seen.target.item ? 'item' : 'a listing with item'} ${item} of the ${campaignsIn(owned).join(' and ')} campaign to the ${strangers.join(' and ')} campaign's key; ${reproduce(obs)}`,
        evidence++ < MAX_EVIDENCE ? obs : undefined,
        undefined,
        'API1:2023' satisfies OwaspCategory,
      ),
    );
  }
  for (const [label, obs] of held) if (!broken.has(label)) judgements.push(holds(obs));
  return judgements;
}

/** Links of answers to host and forwarding headers, against the origins of plain answers' links. */
function linkVerdicts(
  tricks: Map<string, { origins: Set<string>; obs: Observation; seen: Seen }>,
  plain: Set<string>,
  webBaseUrl: string | undefined,
): Judgement[] {
  if (tricks.size === 0) return [];
  const known = new Set(plain);
  if (webBaseUrl && URL.canParse(webBaseUrl)) known.add(new URL(webBaseUrl).origin);
  if (known.size === 0)
    return [
      unjudged('no answer without a host or forwarding header showed the deployment’s links to compare with'),
    ];
  return [...tricks.values()].map(({ origins, obs, seen }) => {
    const elsewhere = [...origins].filter((origin) => !known.has(origin));
    if (elsewhere.length === 0) return holds(obs);
    return breaks(
      `${trickLine(seen)} moved the links of ${routeLine(seen.target)} to ${elsewhere.join(', ')} (the deployment's: ${[...known].join(', ')}); ${reproduce(obs)}`,
      obs,
      undefined,
      'API8:2023',
    );
  });
}
