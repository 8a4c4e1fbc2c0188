/**
 * The campaign a link names (§2.1: `…/dashboard/<campaign_slug>/walks/<id>`), across answers: the
 * items each campaign's key was served link under one path (their id apart), and the two
 * campaigns' paths differ. Each value is well-formed alone; a deployment that builds the other
 * campaign's links from the primary campaign's slug passes every rule about one answer.
 */
import { dataOf, requestLine } from '../core/answers.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import { earlier, evidenceOf } from '../core/evidence.ts';
import type { RuleState } from '../core/state.ts';
import type { Campaign } from '../core/roles.ts';
import { OTHER_CAMPAIGN_KEY, roleOf } from '../core/roles.ts';
import type { Across, Judgement, Rule } from '../core/rule.ts';
import { breaks, holds, unjudged } from '../core/rule.ts';
import { isObject } from '../../spec/json-value.ts';
import { safeDecode } from '../core/spec-model.ts';

/** Paths shown per field and campaign: two already show a fault. */
const MAX_PATHS = 8;

/** The campaign of a reading key, when the request carried one configured key that reads. */
function readingCampaignOf(obs: Observation): Campaign | undefined {
  if (obs.credential.kind !== 'key') return undefined;
  const role = roleOf(obs.credential.key);
  return role.valid && role.scoped ? role.campaign : undefined;
}

/** Each link of an item as `field` → its path with the item's id as `{id}` (`/dashboard/north/walks/{id}`). */
export function linkPaths(item: Record<string, unknown>): [string, string][] {
  const id = typeof item.id === 'string' ? item.id : undefined;
  if (id === undefined) return [];
  return Object.entries(item).flatMap(([field, value]): [string, string][] => {
    if (typeof value !== 'string' || !/^https?:\/\//i.test(value) || !URL.canParse(value)) return [];
    const segments = new URL(value).pathname.split('/').map((s) => (safeDecode(s) === id ? '{id}' : s));
    return segments.includes('{id}') ? [[field, segments.join('/')]] : [];
  });
}

/**
 * The link paths each campaign was served, per field, in the run's state (mergeable, so shards of
 * a recording give the whole file's verdict): `field`, campaign and path as the key, the earliest
 * exchange that showed it as the record.
 */
function campaignLinksAcross(state: RuleState): Across {
  const seen = state.table<Evidence>('CONSISTENCY-004 link paths', earlier);
  return {
    see(obs) {
      const campaign = readingCampaignOf(obs);
      const response = obs.exchange.response;
      if (!campaign || obs.private || !obs.op || response?.status !== 200 || obs.bodyless) return;
      const data = dataOf(response);
      for (const item of Array.isArray(data) ? data : [data]) {
        if (!isObject(item)) continue;
        for (const [field, path] of linkPaths(item)) {
          const key = JSON.stringify([field, campaign, path]);
          if (seen.get(key) === undefined) seen.set(key, evidenceOf(obs));
        }
      }
    },
    *finish(): Iterable<Judgement> {
      /** `field` → campaign → paths with the earliest exchange of each, earliest first. */
      const byField = new Map<string, Map<Campaign, Map<string, Evidence>>>();
      const rows = [...seen.entries()]
        .map(([key, obs]) => [JSON.parse(key) as [string, Campaign, string], obs] as const)
        .sort((x, y) => x[1].exchange.seq - y[1].exchange.seq);
      for (const [[field, campaign, path], obs] of rows) {
        const byCampaign = byField.get(field) ?? new Map<Campaign, Map<string, Evidence>>();
        byField.set(field, byCampaign);
        const paths = byCampaign.get(campaign) ?? new Map<string, Evidence>();
        byCampaign.set(campaign, paths);
        if (paths.size < MAX_PATHS) paths.set(path, obs);
      }
      for (const [field, byCampaign] of [...byField].sort(([x], [y]) => x.localeCompare(y))) {
        for (const [campaign, paths] of byCampaign) {
          if (paths.size <= 1) continue;
          const [first, second] = [...paths];
          yield breaks(
            `the ${campaign} campaign's items link ${field} under ${paths.size} paths: ${first?.[0]} (${first ? requestLine(first[1]) : ''}) and ${second?.[0]} (${second ? requestLine(second[1]) : ''})`,
            second?.[1],
          );
        }
        const primary = byCampaign.get('primary');
        const other = byCampaign.get('other');
        if (!primary || !other) {
          yield unjudged(`${field}: links of both campaigns are needed, and only one campaign's were served`);
          continue;
        }
        const shared = [...primary.keys()].find((path) => other.has(path));
        yield shared === undefined
          ? holds(other.values().next().value)
          : breaks(
              `both campaigns' items link ${field} under ${shared} (${requestLine(other.get(shared) as Evidence)}): a link names the campaign, and the other campaign's names the primary one's`,
              other.get(shared),
            );
      }
    },
  };
}

export const campaignLinkRules: Rule[] = [
  {
    id: 'CONSISTENCY-004',
    section: '§2.1, §5.5',
    title:
      "Each campaign's links name its own campaign: one path across its items, another than the other campaign's",
    area: 'consistency',
    level: 'required',
    owasp: ['API1:2023'],
    needs: [OTHER_CAMPAIGN_KEY],
    mock: { skip: "the mock serves the spec's examples, the same links to every key" },
    unit: 'link fields',
    expected:
      "the links of every item a campaign's key was served share one path (their id apart), and the two campaigns' paths differ (their slug)",
    hint: 'Build each link from the campaign of the item it names (its own slug), never from another campaign’s or from a cached value.',
    across: { judge: (ctx) => campaignLinksAcross(ctx.state) },
  },
];
