/**
 * The planned endpoints (§4.4: not active), judged only where the spec speaks: they serve no data,
 * to any key. Their status and code are the deployment's choice (NOT-FOUND-005 reports them), and
 * a 501 there is a fitting answer, not a server error (ENVELOPE-011 knows the planned paths).
 */
import { PLANNED_PATH_TEMPLATES } from '../../spec/facts.ts';
import type { Exchange } from '../types.ts';
import { NO_SCOPE, PRIMARY } from '../key-uses.ts';
import type { Asking } from '../target.ts';
import type { Check, CheckContext } from './check.ts';
import { counted, describe, verdict } from './outcome.ts';
import { servesData } from './path-variants.ts';

/** A planned template's path with `id` in its parameter. */
const plannedPath = (template: string, id: string) => template.replace(/\{[^}]+\}/, encodeURIComponent(id));

const PLANNED_PATTERNS = PLANNED_PATH_TEMPLATES.map(
  (template) => new RegExp(`^${template.replace(/\{[^}]+\}/, '[^/]+')}/?$`),
);

/** Whether a request URL asks a planned endpoint (the base URL's own path is stripped first). */
export function isPlannedUrl(baseUrl: string, url: string): boolean {
  const path = url.startsWith(baseUrl) ? (url.slice(baseUrl.length).split('?')[0] ?? '') : '';
  return PLANNED_PATTERNS.some((pattern) => pattern.test(path));
}

/** The primary key (every scope it has), the key without walks:read (it may hold the planned scopes), no key. */
function askings(ctx: CheckContext): { name: string; asking: Asking }[] {
  return [
    { name: `$${PRIMARY.key}`, asking: { auth: PRIMARY } },
    ...(ctx.config.keys[NO_SCOPE.key] ? [{ name: `$${NO_SCOPE.key}`, asking: { auth: NO_SCOPE } }] : []),
    { name: 'no key', asking: {} },
  ];
}

export const plannedChecks: Check[] = [
  {
    id: 'PLANNED-001',
    section: '§4.4',
    title: 'The planned endpoints (lists, SMS campaigns, signs) serve no data, to any key',
    area: 'not-found',
    level: 'required',
    mock: { skip: 'the mock serves the live spec only; it answers other paths with its own problem+json' },
    hint: 'Planned endpoints are not active: answer them with a refusal in the error envelope (404, 501 or 403 all fit), never with data.',
    async run(ctx) {
      const expected = 'no data from any planned endpoint (any status and code)';
      const asked: { label: string; exchange: Exchange }[] = await Promise.all(
        PLANNED_PATH_TEMPLATES.flatMap((template) =>
          askings(ctx).map(async ({ name, asking }) => {
            const path = plannedPath(template, ctx.data.unknownId);
            return { label: `${path} (${name})`, exchange: await ctx.client.send({ ...asking, path }) };
          }),
        ),
      );
      const served = asked.filter(({ exchange }) => servesData(exchange));
      return counted(
        verdict(
          expected,
          served.map(({ label, exchange }) => `${label} served data: ${describe(exchange.response)}`),
          `${asked.length} requests, none served data`,
          (served[0] ?? asked[0])?.exchange,
        ),
        { requests: asked.length, records: asked.length, unit: 'requests' },
      );
    },
  },
];
