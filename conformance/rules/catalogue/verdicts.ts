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
 * The verdicts wait for the whole source, so they do not depend on the order exchanges came in.
 * They keep a few facts per item, group or origin in tables of the run's state, never a body, each
 * with how two shards' records of it join: a recording judged in shards and merged gets the
 * verdicts it gets judged whole. Requests without a key are judged only once a key header shows
 * somewhere: a recording that shows none may be a sanitized export.
 */
import { describe, idsIn, isSuccess } from '../../core/answers.ts';
import { isUnknownId } from '../../core/ids.ts';
import type { Observation } from '../../core/observation.ts';
import type { OwaspCategory } from '../../core/owasp.ts';
import type { Campaign } from '../../core/roles.ts';
import { roleOf } from '../../core/roles.ts';
import type { Across, AcrossContext, Judgement, RuleContext } from '../../core/rule.ts';
import { breaks, holds, unjudged } from '../../core/rule.ts';
import { EvidenceTable } from '../../core/evidence.ts';
import type { Merge, RuleState, StateTable } from '../../core/state.ts';
import { either, joinBits, sharedBy, sum } from '../../core/state.ts';
import { isObject } from '../../../spec/json-value.ts';
import { carriesData, HeldVerdicts, NO_KEY_HEADER_RECORDED } from '../auth-readings.ts';
import type { Family } from './catalogue.ts';
import { FAMILIES, SOURCES } from './catalogue.ts';
import type { Seen } from './recognise.ts';
import { recognise } from './recognise.ts';
import type { Refusal, RefusalKind, Target } from './targets.ts';
import { refusalOf } from './targets.ts';

/** Rate limiting says nothing of a trick: such an answer is not compared. */
const TOO_MANY_REQUESTS = 429;
/** Findings whose exchange is kept as evidence, per verdict (a recording's earliest). */
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

/**
 * A trick as its findings name it, from the earliest exchange that showed it (the lowest entry
 * number, so shards joined name it as the whole recording does): plain data, for a table.
 */
interface TrickShown {
  seq: number;
  /** `trickLine` */
  trick: string;
  /** `routeLine` */
  route: string;
  label: string;
  /** Whether the route names an item. */
  item: boolean;
  /** The reproduction of that exchange. */
  curl: string;
}

const shownOf = (seen: Seen, obs: Observation): TrickShown => ({
  seq: obs.exchange.seq,
  trick: trickLine(seen),
  route: routeLine(seen.target),
  label: seen.label,
  item: seen.target.item,
  curl: obs.exchange.request.curl,
});

/** The record of the earlier exchange: a merge of records that name what they first showed. */
const earlier = <R extends { shown: TrickShown }>(kept: R, other: R): R =>
  other.shown.seq < kept.shown.seq ? other : kept;

/** Statuses, sorted, without repeats; a merge of statuses kept apart is their union. */
const unionStatuses: Merge<number[]> = (kept, other) =>
  [...new Set([...kept, ...other])].sort((a, b) => a - b);

/** An item a trick served to reading keys: the campaigns, and the trick. */
interface ServedByTrick {
  bits: number;
  shown: TrickShown;
}

/** Answers of one trick, method, refusal and route: the item route its ids belong to. */
interface TrickedGroup {
  shown: TrickShown;
  refusal: RefusalKind;
  owasp: OwaspCategory;
  /** The group of plain refusals of the same refusal and route (`refusedKey`). */
  refused: string;
  /** `itemRoute` */
  itemRoute: string;
}

/** Links a trick's answers carried. */
interface TrickOrigins {
  origins: string[];
  shown: TrickShown;
}

/** Separates a group from an item's id in a table's key: sorts before every other character. */
const SEP = '\u0000';
const refusedKey = (kind: RefusalKind, target: Target) => `${kind} ${target.template}`;

/** Statuses of items, split by whether the item exists, and of ids the suite made up to name none. */
interface Split {
  real: Set<number>;
  unknown: Set<number>;
}

const disjoint = (a: Set<number>, b: Set<number>) =>
  a.size > 0 && b.size > 0 && [...a].every((status) => !b.has(status));
const statusesLine = (statuses: Set<number>) => [...statuses].sort().join(' or ');

/** Adds a status to the record of `key` in a table of statuses, written only when it is new. */
function addStatus(table: StateTable<number[]>, key: string, status: number): void {
  const known = table.get(key);
  if (known?.includes(status)) return;
  table.set(key, unionStatuses(known ?? [], [status]));
}

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

/**
 * What plain answers (no trick) show, shared by the families' rules of a run: which campaigns each
 * item was listed or served to (`item route id` → bits), and what a refusal answered per item
 * (`refusal route` SEP `id` → statuses). Each rule is shown every exchange; the first to be shown
 * one records it.
 */
class PlainFacts {
  readonly owners: StateTable<number>;
  readonly refusals: StateTable<number[]>;
  private last: Observation | undefined;

  constructor(state: RuleState) {
    this.owners = state.table<number>('catalogue owners', joinBits);
    this.refusals = state.table<number[]>('catalogue refusals', unionStatuses);
  }

  see(obs: Observation, aim: { target: Target; id?: string }): void {
    if (this.last === obs) return;
    this.last = obs;
    const response = obs.exchange.response;
    if (!response) return;
    const campaign = readingCampaignOf(obs);
    if (campaign && isSuccess(response.status) && aim.target.kind === 'operation') {
      const ids = aim.id !== undefined ? [aim.id] : obs.bodyless ? [] : idsIn(response);
      const route = itemRoute(aim.target);
      for (const id of ids) {
        const key = `${route} ${id}`;
        const bits = this.owners.get(key) ?? 0;
        if ((bits & BIT[campaign]) === 0) this.owners.set(key, bits | BIT[campaign]);
      }
      return;
    }
    const refusal = refusalOf(obs, aim.target);
    if (!refusal || refusal === 'reading' || !aim.target.item || aim.id === undefined) return;
    if (response.status === TOO_MANY_REQUESTS) return;
    addStatus(this.refusals, `${refusedKey(refusal.kind, aim.target)}${SEP}${aim.id}`, response.status);
  }

  exists(itemRoute: string, id: string): boolean {
    return this.owners.get(`${itemRoute} ${id}`) !== undefined;
  }
}

const makePlainFacts = (state: RuleState) => new PlainFacts(state);

/**
 * The verdicts of one family's rule over a whole source: data to a refusal, existence told, another
 * campaign's item served, and (host and forwarding headers) links that point elsewhere.
 */
export const familyAcross = (family: Family, ctx: AcrossContext): Across => new FamilyVerdicts(family, ctx);

class FamilyVerdicts implements Across {
  private readonly keyless: HeldVerdicts;
  private readonly keyed: HeldVerdicts;
  /** Why answers were left unjudged, with how many: summed across shards. */
  private readonly notJudged: StateTable<number>;
  /** Whether any exchange showed a key header (one record, `''`). */
  private readonly keysShown: StateTable<boolean>;
  /** Who holds which item, and what refusals answered: the same for every family. */
  private readonly plain: PlainFacts;
  /** Items a trick served to a reading key: `item route id` → the campaigns, and the trick. */
  private readonly served: StateTable<ServedByTrick>;
  private readonly servedEvidence: EvidenceTable;
  /** Answers to a trick per trick, method, refusal and route; their statuses per item. */
  private readonly tricked: StateTable<TrickedGroup>;
  private readonly trickedStatuses: StateTable<number[]>;
  private readonly trickedEvidence: EvidenceTable;
  /** The origins of links in plain answers, and the origins trick answers showed (host headers). */
  private readonly plainOrigins: StateTable<boolean>;
  private readonly trickOrigins: StateTable<TrickOrigins>;
  private readonly originsEvidence: EvidenceTable;

  private readonly family: Family;
  private readonly ctx: RuleContext;

  constructor(family: Family, ctx: AcrossContext) {
    this.family = family;
    this.ctx = ctx;
    const { state, ruleId } = ctx;
    this.keyless = new HeldVerdicts(state, `${ruleId} keyless`);
    this.keyed = new HeldVerdicts(state, `${ruleId} keyed`);
    this.notJudged = state.table<number>(`${ruleId} not judged`, sum);
    this.keysShown = state.table<boolean>(`${ruleId} keys shown`, either);
    this.plain = sharedBy(state, makePlainFacts);
    this.served = state.table<ServedByTrick>(`${ruleId} served by tricks`, (kept, other) => ({
      ...earlier(kept, other),
      bits: kept.bits | other.bits,
    }));
    this.servedEvidence = new EvidenceTable(state, `${ruleId} served by tricks evidence`, MAX_EVIDENCE);
    this.tricked = state.table<TrickedGroup>(`${ruleId} tricked`, earlier);
    this.trickedStatuses = state.table<number[]>(`${ruleId} tricked statuses`, unionStatuses);
    this.trickedEvidence = new EvidenceTable(state, `${ruleId} tricked evidence`, MAX_EVIDENCE);
    this.plainOrigins = state.table<boolean>(`${ruleId} plain origins`, either);
    this.trickOrigins = state.table<TrickOrigins>(`${ruleId} trick origins`, earlier);
    this.originsEvidence = new EvidenceTable(state, `${ruleId} trick origins evidence`, MAX_EVIDENCE);
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
    judgements.push(...this.existenceVerdicts());
    judgements.push(...this.ownershipVerdicts());
    if (this.family === 'host') judgements.push(...this.linkVerdicts());
    return judgements;
  }

  /** An answer without a trick: who holds which item, what a refusal answers, the links it shows. */
  private seePlain(obs: Observation, aim: { target: Target; id?: string } | undefined): void {
    const response = obs.exchange.response;
    if (!response || !aim) return;
    this.plain.see(obs, aim);
    if (this.family !== 'host' || obs.bodyless || !isSuccess(response.status)) return;
    if (aim.target.kind !== 'operation' || !readingCampaignOf(obs)) return;
    for (const origin of linkOrigins(response.json, new Set()))
      if (!this.plainOrigins.get(origin)) this.plainOrigins.set(origin, true);
  }

  /** A trick's answer to a key that reads: the items it served, and (host headers) its links. */
  private seeReading(obs: Observation, seen: Seen, campaign: Campaign): void {
    const response = obs.exchange.response;
    if (!response || !isSuccess(response.status) || obs.bodyless || !carriesData(response)) return;
    if (seen.target.kind !== 'operation') return;
    const route = itemRoute(seen.target);
    for (const id of seen.id !== undefined ? [seen.id] : idsIn(response)) {
      const key = `${route} ${id}`;
      const known = this.served.get(key);
      const shown = known && known.shown.seq <= obs.exchange.seq ? known.shown : shownOf(seen, obs);
      this.served.set(key, { bits: (known?.bits ?? 0) | BIT[campaign], shown });
      this.servedEvidence.keep(key, obs);
    }
    if (this.family === 'host') {
      const origins = [...linkOrigins(response.json, new Set())].sort();
      const key = `${seen.label} ${origins.join(' ')}`;
      const known = this.trickOrigins.get(key);
      if (!known || obs.exchange.seq < known.shown.seq)
        this.trickOrigins.set(key, { origins, shown: shownOf(seen, obs) });
      this.originsEvidence.keep(key, obs);
    }
  }

  /** A trick's answer to credentials the route refuses: data, and statuses by the item's existence. */
  private seeRefused(obs: Observation, seen: Seen, refusal: Refusal): void {
    const response = obs.exchange.response;
    if (!response) return;
    if (seen.target.item && seen.id !== undefined && response.status !== TOO_MANY_REQUESTS) {
      const group = `${seen.label} ${obs.exchange.request.method} ${refusal.kind} ${seen.target.template}`;
      const known = this.tricked.get(group);
      if (!known || obs.exchange.seq < known.shown.seq)
        this.tricked.set(group, {
          shown: shownOf(seen, obs),
          refusal: refusal.kind,
          owasp: refusal.owasp,
          refused: refusedKey(refusal.kind, seen.target),
          itemRoute: itemRoute(seen.target),
        });
      addStatus(this.trickedStatuses, `${group}${SEP}${seen.id}`, response.status);
      this.trickedEvidence.keep(group, obs);
    }
    const verdict = dataVerdict(obs, seen, refusal);
    if (verdict?.verdict === 'unjudged')
      this.notJudged.set(verdict.reason, (this.notJudged.get(verdict.reason) ?? 0) + 1);
    else (obs.credential.kind === 'none' ? this.keyless : this.keyed).add(verdict, obs);
  }

  /**
   * Statuses that tell items that exist from one that does not, per trick, method, refusal and
   * route, where the refusal alone (the same request without the trick) does not.
   */
  private existenceVerdicts(): Judgement[] {
    const groups = new Map<string, TrickedGroup & Split>();
    for (const [key, group] of this.tricked.entries())
      groups.set(key, { ...group, real: new Set(), unknown: new Set() });
    if (groups.size === 0) return [];
    const split = (into: Split, itemRoute: string, id: string, statuses: number[]) => {
      const set = isUnknownId(id) ? into.unknown : this.plain.exists(itemRoute, id) ? into.real : undefined;
      for (const status of statuses) set?.add(status);
    };
    for (const [key, statuses] of this.trickedStatuses.entries()) {
      const at = key.lastIndexOf(SEP);
      const group = groups.get(key.slice(0, at));
      if (group) split(group, group.itemRoute, key.slice(at + 1), statuses);
    }
    const telling = [...groups.values()].filter(({ real, unknown }) => disjoint(real, unknown));
    // The refusals without a trick, of the groups whose statuses tell items apart.
    const refused = new Map<string, Split & { itemRoute: string }>();
    for (const group of telling)
      refused.set(group.refused, { itemRoute: group.itemRoute, real: new Set(), unknown: new Set() });
    if (refused.size > 0)
      for (const [key, statuses] of this.plain.refusals.entries()) {
        const at = key.lastIndexOf(SEP);
        const into = refused.get(key.slice(0, at));
        if (into) split(into, into.itemRoute, key.slice(at + 1), statuses);
      }
    const judgements: Judgement[] = [];
    for (const [key, group] of groups) {
      const { real, unknown, shown } = group;
      if (real.size === 0 || unknown.size === 0) continue;
      const evidence = this.trickedEvidence.get(key);
      const plain = refused.get(group.refused);
      if (!disjoint(real, unknown) || (plain && disjoint(plain.real, plain.unknown))) {
        judgements.push(holds(evidence));
        continue;
      }
      const itself =
        plain && plain.real.size > 0 ? `; the refusal itself answers ${statusesLine(plain.real)}` : '';
      judgements.push(
        breaks(
          `${shown.trick} tells which items exist on ${shown.route} with ${group.refusal}: ${statusesLine(real)} for items that exist, ${statusesLine(unknown)} for one that does not${itself}; reproduce: ${shown.curl}`,
          evidence,
          undefined,
          group.owasp,
        ),
      );
    }
    return judgements;
  }

  /**
   * Items a trick served to a reading key, judged against the campaigns plain answers gave them to:
   * one verdict per trick, and a finding per item served to a campaign that does not hold it.
   */
  private ownershipVerdicts(): Judgement[] {
    const judgements: Judgement[] = [];
    const held = new Map<string, string>();
    const broken = new Set<string>();
    for (const [key, { bits, shown }] of this.served.entries()) {
      const owned = this.plain.owners.get(key) ?? 0;
      const strangers = campaignsIn(bits).filter((campaign) => owned !== 0 && (owned & BIT[campaign]) === 0);
      if (strangers.length === 0) {
        if (!held.has(shown.label)) held.set(shown.label, key);
        continue;
      }
      broken.add(shown.label);
      const item = key.slice(key.lastIndexOf(' ') + 1);
      judgements.push(
        breaks(
          `${shown.trick} served ${shown.item ? 'item' : 'a listing with item'} ${item} of the ${campaignsIn(owned).join(' and ')} campaign to the ${strangers.join(' and ')} campaign's key; reproduce: ${shown.curl}`,
          this.servedEvidence.get(key),
          undefined,
          'API1:2023' satisfies OwaspCategory,
        ),
      );
    }
    for (const [label, key] of held)
      if (!broken.has(label)) judgements.push(holds(this.servedEvidence.get(key)));
    return judgements;
  }

  /** Links of answers to host and forwarding headers, against the origins of plain answers' links. */
  private linkVerdicts(): Judgement[] {
    if (this.trickOrigins.size === 0) return [];
    const known = new Set(this.plainOrigins.keys());
    const webBaseUrl = this.ctx.webBaseUrl;
    if (webBaseUrl && URL.canParse(webBaseUrl)) known.add(new URL(webBaseUrl).origin);
    if (known.size === 0)
      return [
        unjudged(
          'no answer without a host or forwarding header showed the deployment’s links to compare with',
        ),
      ];
    const judgements: Judgement[] = [];
    for (const [key, { origins, shown }] of this.trickOrigins.entries()) {
      const evidence = this.originsEvidence.get(key);
      const elsewhere = origins.filter((origin) => !known.has(origin));
      judgements.push(
        elsewhere.length === 0
          ? holds(evidence)
          : breaks(
              `${shown.trick} moved the links of ${shown.route} to ${elsewhere.join(', ')} (the deployment's: ${[...known].join(', ')}); reproduce: ${shown.curl}`,
              evidence,
              undefined,
              'API8:2023',
            ),
      );
    }
    return judgements;
  }
}

/** The collection an item belongs to and the item route itself share owners: keyed by the item's route. */
function itemRoute(target: Target): string {
  const op = target.op;
  if (!op) return target.template;
  return op.kind === 'collection' ? (op.items[0]?.path ?? op.path) : op.path;
}
