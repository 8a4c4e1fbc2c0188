/**
 * No echo (§5.4: a key is shown once, at creation): no answer, body or header, repeats the key its
 * request carried, whole or any run of its body long enough to be no accident (`run/echoes.ts`),
 * for every key a request carries, good or bad. The finding names the key, never shows it; only
 * `ctx.echoed` meets key values.
 */
import { requestLine } from '../core/answers.ts';
import type { Credential } from '../core/credentials.ts';
import { credentialLabel } from '../core/credentials.ts';
import type { Rule, RuleContext } from '../core/rule.ts';
import { breaks, holds } from '../core/rule.ts';

/**
 * Whether the run knows the value of a key these credentials carried: a configured key (or an edit
 * of one) by its variable; the made-up key only where this run's client made it up.
 */
function knowable(credential: Credential, ctx: RuleContext): boolean {
  switch (credential.kind) {
    case 'key':
      return ctx.keys.has(credential.key);
    case 'near-miss':
      return ctx.keys.has(credential.key) && credential.miss !== 'bare-prefix';
    case 'made-up':
      return ctx.source !== 'traffic';
    case 'two':
      return knowable(credential.bearer, ctx) || knowable(credential.xApiKey, ctx);
    default:
      return false;
  }
}

export const keyEchoRules: Rule[] = [
  {
    id: 'AUTH-017',
    section: '§5.4',
    title: 'No answer repeats the key it was sent, whole or in part (body or headers)',
    area: 'auth',
    level: 'required',
    owasp: ['API2:2023'],
    mock: 'run',
    about: 'every answer, whatever else failed',
    expected: 'no answer holds the key its request carried, or a run of it long enough to be no accident',
    hint: 'Never put the request’s key, or part of it, in an answer (error messages, debug headers, echoed requests): a key is shown once, at creation.',
    judge(obs, ctx) {
      const response = obs.exchange.response;
      if (!response || (!obs.op && !obs.inApi) || !knowable(obs.credential, ctx)) return undefined;
      const places = [
        ...(ctx.echoed(obs.credential, response.body) ? ['the body'] : []),
        ...Object.entries(response.headers)
          .filter(([, value]) => ctx.echoed(obs.credential, value))
          .map(([name]) => `header ${name}`),
      ];
      return places.length === 0
        ? holds(obs)
        : breaks(`${requestLine(obs)}: ${places.join(', ')} repeat ${credentialLabel(obs.credential)}`, obs);
    },
  },
];
