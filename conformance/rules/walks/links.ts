/**
 * A walk's links (§2.1): `web_url` is `{web_base_url}/dashboard/<campaign_slug>/walks/<walk_id>`
 * and `app_link` is `{web_base_url}/open/<campaign_slug>/walks/<walk_id>`, taken apart once per
 * distinct link (a recording shows the same walks' links answer after answer).
 */
import { isObject } from '../../../spec/json-value.ts';
import { remembered } from '../../../spec/remembered.ts';

export interface WalkLink {
  base: string;
  slug: string;
  id: string;
}

/** The shape of each kind of link. */
const LINK_SHAPES = {
  dashboard: /^(https?:\/\/.+?)\/dashboard\/([^/?#]+)\/walks\/([^/?#]+)$/,
  open: /^(https?:\/\/.+?)\/open\/([^/?#]+)\/walks\/([^/?#]+)$/,
} as const;

type LinkKind = keyof typeof LINK_SHAPES;

const MAX_LINKS_SEEN = 4096;
const linksSeen = {
  dashboard: remembered((value) => linkOf(value, 'dashboard'), MAX_LINKS_SEEN),
  open: remembered((value) => linkOf(value, 'open'), MAX_LINKS_SEEN),
};

/** A link taken apart, or why it cannot be. */
function parseWalkLink(value: unknown, kind: LinkKind): WalkLink | string {
  if (typeof value !== 'string') return `is ${JSON.stringify(value)}, not a string`;
  return linksSeen[kind](value);
}

function linkOf(value: string, kind: LinkKind): WalkLink | string {
  const match = LINK_SHAPES[kind].exec(value);
  if (!match?.[1] || !match[2] || !match[3]) {
    return `${JSON.stringify(value)} is not shaped {web_base_url}/${kind}/<campaign_slug>/walks/<walk_id>`;
  }
  if (!URL.canParse(match[1])) return `${JSON.stringify(value)} has no absolute base URL`;
  try {
    return { base: match[1], slug: decodeURIComponent(match[2]), id: decodeURIComponent(match[3]) };
  } catch {
    return `${JSON.stringify(value)} is not percent-encoded correctly`;
  }
}

export interface WalkLinks {
  walk: Record<string, unknown>;
  /** `walk 93bfb174-…`, as problems name a walk. */
  label: string;
  web: WalkLink;
  app: WalkLink;
}

export const walkLabel = (walk: unknown, index: number) =>
  isObject(walk) && typeof walk.id === 'string' ? `walk ${walk.id}` : `walk #${index + 1}`;

/** One walk's links, or the problems found in them. */
export function linksOfWalk(walk: unknown, index: number): WalkLinks | string[] {
  if (!isObject(walk)) return [];
  const label = walkLabel(walk, index);
  const web = parseWalkLink(walk.web_url, 'dashboard');
  const app = parseWalkLink(walk.app_link, 'open');
  const problems: string[] = [];
  if (typeof web === 'string') problems.push(`${label}: web_url ${web}`);
  if (typeof app === 'string') problems.push(`${label}: app_link ${app}`);
  if (typeof web === 'string' || typeof app === 'string') return problems;
  if (web.id !== walk.id) problems.push(`${label}: web_url names walk ${web.id}`);
  if (app.id !== walk.id) problems.push(`${label}: app_link names walk ${app.id}`);
  if (web.base !== app.base) problems.push(`${label}: web_url base ${web.base} ≠ app_link base ${app.base}`);
  if (web.slug !== app.slug) problems.push(`${label}: web_url slug ${web.slug} ≠ app_link slug ${app.slug}`);
  return problems.length > 0 ? problems : { walk, label, web, app };
}

/** The slugs and bases a set of links uses, and the problem when there is more than one of either. */
export function linkSpread(links: readonly { web: WalkLink }[]): {
  slugs: string[];
  bases: string[];
  problems: string[];
} {
  const slugs = [...new Set(links.map((l) => l.web.slug))];
  const bases = [...new Set(links.map((l) => l.web.base))];
  const problems = [
    ...(slugs.length > 1 ? [`${slugs.length} slugs: ${slugs.slice(0, 4).join(', ')}`] : []),
    ...(bases.length > 1 ? [`${bases.length} bases: ${bases.slice(0, 4).join(', ')}`] : []),
  ];
  return { slugs, bases, problems };
}
