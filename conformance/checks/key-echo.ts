/**
 * No echo (§5.4: a key is shown once, at creation): no answer, body or header, repeats the key its
 * request carried, whole or any 12-character run of its body, for every key the suite sends, good
 * or bad. Judged over the whole traffic; the finding names the key, never shows it.
 */
import { KEY_PREFIX } from '../../spec/facts.ts';
import { MADE_UP_KEY_SHELL } from '../client.ts';
import type { Exchange, ResponseData } from '../types.ts';
import { nearMissLabel, nearMissOf } from '../near-miss.ts';
import type { Check, CheckContext } from './check.ts';
import { counted, inconclusive, verdict } from './outcome.ts';

/** A run this long of a random key body cannot occur in an answer by chance. */
export const ECHO_RUN = 12;
/** Any run of ECHO_RUN characters holds a whole chunk of half its length at a multiple of it. */
const CHUNK = ECHO_RUN / 2;

interface Sent {
  name: string;
  body: string;
}

/** The keys a request carried, by the name reports give them, with the body each must not echo. */
function keysSent(ctx: CheckContext, exchange: Exchange): Sent[] {
  const { keys, nearMisses, headers } = exchange.request;
  const values = [
    ...keys.map((key) => ({ name: `$${key}`, value: ctx.config.keys[key] })),
    ...(nearMisses ?? []).map(({ key, nearMiss }) => ({
      name: nearMissLabel(key, nearMiss),
      value: nearMissOf(ctx.config.keys[key] ?? '', nearMiss),
    })),
    ...(Object.values(headers).some((v) => v.includes(MADE_UP_KEY_SHELL))
      ? [{ name: 'the made-up key', value: ctx.client.madeUpKey }]
      : []),
  ];
  return values.flatMap(({ name, value }) => {
    const body = value?.startsWith(KEY_PREFIX) ? value.slice(KEY_PREFIX.length) : value;
    // A body shorter than a run (or the bare prefix, which is public) has nothing secret to echo.
    return body !== undefined && body.length >= ECHO_RUN ? [{ name, body }] : [];
  });
}

/** Whether `text` holds any ECHO_RUN-character run of `body` (chunks first: cheap on every answer). */
export function echoes(text: string, body: string): boolean {
  let hinted = false;
  for (let at = 0; at + CHUNK <= body.length && !hinted; at += CHUNK) {
    hinted = text.includes(body.slice(at, at + CHUNK));
  }
  if (!hinted) return false;
  for (let at = 0; at + ECHO_RUN <= body.length; at++) {
    if (text.includes(body.slice(at, at + ECHO_RUN))) return true;
  }
  return false;
}

/** Where an answer repeats the key: its body, or a header by name. */
function echoedIn(response: ResponseData, body: string): string[] {
  const places = Object.entries(response.headers)
    .filter(([, value]) => echoes(value, body))
    .map(([name]) => `header ${name}`);
  return echoes(response.body, body) ? ['body', ...places] : places;
}

export const keyEchoChecks: Check[] = [
  {
    id: 'AUTH-017',
    section: '§5.4',
    title: 'No answer repeats the key it was sent, whole or any 12-character run of it (body or headers)',
    area: 'auth',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Never put the request’s key, or part of it, in an answer (error messages, debug headers, echoed requests): a key is shown once, at creation.',
    async run(ctx) {
      const expected = `no answer holds a run of ${ECHO_RUN} characters of the key its request carried`;
      const carrying = ctx.client.exchanges.flatMap((exchange) => {
        const sent = keysSent(ctx, exchange);
        return exchange.response && sent.length > 0 ? [{ exchange, response: exchange.response, sent }] : [];
      });
      if (carrying.length === 0) return inconclusive(expected, 'no answer to a request that carried a key');
      const findings = carrying.flatMap(({ exchange, response, sent }) =>
        sent.flatMap(({ name, body }) => {
          const places = echoedIn(response, body);
          return places.length
            ? [
                {
                  exchange,
                  line: `${exchange.request.method} ${exchange.request.url}: ${places.join(', ')} repeat ${name}`,
                },
              ]
            : [];
        }),
      );
      return counted(
        verdict(
          expected,
          findings.map((f) => f.line),
          `${carrying.length} answers, none repeats its key`,
          findings[0]?.exchange,
        ),
        { requests: carrying.length, records: carrying.length, unit: 'answers' },
      );
    },
  },
];
