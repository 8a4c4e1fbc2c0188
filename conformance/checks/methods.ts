/**
 * Read-only (§1, §4: every live endpoint is GET): writes are refused. Writes aim only at the
 * collection (with an empty body) and at an id that does not exist, never at real data, so a
 * deployment that wrongly accepts them loses nothing to the suite.
 */
import { walkPath, WALKS_PATH } from '../../spec/facts.ts';
import { PRIMARY } from '../key-uses.ts';
import type { Check, CheckContext } from './check.ts';
import {
  advisory,
  answersAs,
  describe,
  inconclusive,
  isClientError,
  noAnswer,
  refusal,
  verdict,
} from './outcome.ts';

/** D-METHOD: the project refuses writes with this code, and says what is allowed. */
const WRITE_CODE = 'method_not_allowed';

const MOCK_METHODS = {
  skip: 'the mock answers methods the spec does not list itself, with its own problem+json 405',
};

const WRITES = [
  { id: 'METHODS-001', method: 'POST', target: 'collection' },
  { id: 'METHODS-002', method: 'PUT', target: 'walk' },
  { id: 'METHODS-003', method: 'PATCH', target: 'walk' },
  { id: 'METHODS-004', method: 'DELETE', target: 'walk' },
] as const;

function sendWrite(ctx: CheckContext, write: (typeof WRITES)[number]) {
  const path = write.target === 'collection' ? WALKS_PATH : walkPath(ctx.data.unknownId);
  const body = write.method === 'DELETE' ? undefined : '{}';
  return ctx.client.send({ method: write.method, path, auth: PRIMARY, ...(body ? { body } : {}) });
}

export const methodsChecks: Check[] = [
  ...WRITES.map((write): Check => ({
    id: write.id,
    section: '§1, §4',
    title: `${write.method} is refused with a 4xx (the API is read-only)`,
    area: 'methods',
    level: 'required',
    mock: MOCK_METHODS,
    hint: `Refuse ${write.method} with a 4xx error envelope (the project answers ${refusal(WRITE_CODE)} with Allow: GET, HEAD).`,
    async run(ctx) {
      const expected = `${write.method} answered with a 4xx`;
      const exchange = await sendWrite(ctx, write);
      const missing = noAnswer(expected, exchange);
      if (missing || !exchange.response) return missing as NonNullable<typeof missing>;
      const ok = isClientError(exchange.response.status);
      return verdict(
        expected,
        ok ? [] : [`answered ${describe(exchange.response)}`],
        String(exchange.response.status),
        exchange,
      );
    },
  })),
  {
    id: 'METHODS-005',
    section: '§4',
    title: 'Status and Allow header for writes',
    area: 'methods',
    level: 'advisory',
    decision: 'D-METHOD',
    mock: MOCK_METHODS,
    hint: 'Any 4xx is conformant.',
    async run(ctx) {
      const exchanges = await Promise.all(WRITES.map((w) => sendWrite(ctx, w)));
      const lines = exchanges.map(
        (e) =>
          `${e.request.method} → ${e.response ? `${e.response.status}${e.response.headers.allow ? ` (Allow: ${e.response.headers.allow})` : ''}` : 'no answer'}`,
      );
      const differs = exchanges.some((e) => e.response && !answersAs(e.response, WRITE_CODE));
      return advisory(
        `project decision: ${refusal(WRITE_CODE)} with Allow: GET, HEAD`,
        lines.join('; '),
        exchanges[0],
        { differs },
      );
    },
  },
  {
    id: 'METHODS-006',
    section: '§4',
    title: 'HEAD on the list',
    area: 'methods',
    level: 'advisory',
    decision: 'D-HEAD',
    mock: MOCK_METHODS,
    hint: 'The project answers HEAD like GET, without a body.',
    async run(ctx) {
      const exchange = await ctx.client.send({
        method: 'HEAD',
        path: WALKS_PATH,
        query: 'limit=1',
        auth: PRIMARY,
      });
      if (!exchange.response)
        return inconclusive('an answer', exchange.error?.message ?? 'no answer', exchange);
      return advisory(
        'project decision: answered like GET, without a body',
        `${exchange.response.status}, ${exchange.response.bytes} body bytes`,
        exchange,
      );
    },
  },
];
