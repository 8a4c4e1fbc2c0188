/**
 * What the JSON parser never sees. The charset an answer declares: RFC 8259 §8.1, JSON exchanged
 * between systems is UTF-8; a declared charset other than UTF-8 tells a client to decode the bytes
 * otherwise (ISO-8859-1 turns every name with an accent into other letters). And the bytes after the
 * headers of an answer that has no content (HEAD, 204, 304), which an HTTP client drops: read off the
 * socket (`transport/raw-answer.ts`), they show a deployment that writes a body where none may be,
 * and that desynchronises the next answer on a kept connection (RFC 9112 §6.3).
 */
import { requestLine } from '../core/answers.ts';
import { PRIMARY_KEY } from '../core/roles.ts';
import type { Probe, Rule } from '../core/rule.ts';
import { breaks, holds, unjudged } from '../core/rule.ts';
import { revalidationOf } from './caching.ts';
import { readOf } from './requests.ts';

const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/;

/** The `charset` parameter of a Content-Type, lower case and unquoted, or undefined when none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
  return match?.[2]?.toLowerCase();
}

export const wireRules: Rule[] = [
  {
    id: 'ENVELOPE-017',
    section: '§4 (RFC 8259 §8.1)',
    title: 'A JSON answer that declares a charset declares UTF-8',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    about: 'answers to its requests',
    expected: 'application/json with no charset, or charset=utf-8',
    hint: 'Send Content-Type: application/json (charset=utf-8 if any) and encode the body in UTF-8.',
    judge(obs) {
      const response = obs.exchange.response;
      if (!response || (!obs.op && !obs.inApi) || !JSON_MEDIA.test(response.mediaType ?? ''))
        return undefined;
      const charset = charsetOf(response.contentType);
      if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return holds(obs);
      return breaks(
        `${requestLine(obs)}: Content-Type: ${response.contentType} declares ${charset}; JSON is UTF-8 (RFC 8259 §8.1)`,
        obs,
      );
    },
  },
  {
    id: 'ENVELOPE-018',
    section: '§4 (RFC 9110 §9.3.2, §15.3.5, §15.4.5; RFC 9112 §6.3)',
    title: 'An answer to HEAD, and a 204 or 304, ends with its headers: no bytes follow them on the wire',
    area: 'envelope',
    level: 'required',
    needs: [PRIMARY_KEY],
    direct:
      "an answer is read off a socket of the suite's own, and a proxy between reads and frames it again",
    mock: { skip: 'the mock is reached through an HTTP server of its own, which never writes a body there' },
    about: 'answers to its requests',
    expected: 'nothing after the blank line that ends the headers of HEAD, 204 and 304 answers',
    hint: 'Send no body with an answer to HEAD, nor with a 204 or 304: headers only (Content-Length may say what GET would send).',
    plan(op, world) {
      const probes: Probe[] = [];
      const head = readOf(op, world, { key: PRIMARY_KEY, method: 'HEAD' });
      if (head) probes.push({ request: { ...head, offSocket: true } });
      // A 304 to the revalidation of one known item, where the deployment gives ETags (ENVELOPE-015).
      if (op.kind !== 'collection') {
        const get = readOf(op, world, { key: PRIMARY_KEY }, 'full');
        if (get)
          probes.push({
            request: get,
            followUp: (answered) => {
              const again = revalidationOf(get, answered);
              return again ? { ...again, offSocket: true } : undefined;
            },
          });
      }
      return probes;
    },
    judge(obs) {
      const response = obs.exchange.response;
      const socket = response?.socket;
      if (!response || !socket) return undefined;
      const isHead = obs.exchange.request.method === 'HEAD';
      if (!isHead && response.status !== 204 && response.status !== 304) return undefined;
      if ('unread' in socket) return unjudged(`${requestLine(obs)}: ${socket.unread}`, obs);
      if (socket.afterHeaders === 0) return holds(obs);
      const what = isHead ? `an answer to HEAD (${response.status})` : `a ${response.status}`;
      return breaks(
        `${requestLine(obs)}: ${socket.afterHeaders} bytes followed the headers of ${what} on the wire, where an answer has no content`,
        obs,
      );
    },
  },
];
