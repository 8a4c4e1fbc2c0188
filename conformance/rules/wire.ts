/**
 * What the JSON parser never sees: the charset an answer declares. RFC 8259 §8.1: JSON exchanged
 * between systems is UTF-8; a declared charset other than UTF-8 tells a client to decode the bytes
 * otherwise (ISO-8859-1 turns every name with an accent into other letters).
 */
import { requestLine } from '../core/answers.ts';
import type { Rule } from '../core/rule.ts';
import { breaks, holds } from '../core/rule.ts';

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
    sees: 'answers',
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
];
