/**
 * A variant's refusals: the project's error answers whose status and code the variant chose
 * differently, keyed by the answer they replace. The error handler sends through `remap`, so
 * every refusal still leaves by the one pipeline; messages stay ours.
 */
import {
  type ErrorAnswer,
  errorAnswer,
  INVALID_KEY,
  INVALID_LIMIT,
  MALFORMED_KEY_ANSWERS,
  MALFORMED_WALK_ID,
  METHOD_NOT_ALLOWED,
  MISSING_KEY,
  NO_SUCH_ENDPOINT,
  REVOKED_KEY,
} from '../errors.ts';
import type { Refusal, Variant } from './variant.ts';

export type Remap = (answer: ErrorAnswer) => ErrorAnswer;

export const OUR_ANSWERS: Remap = (answer) => answer;

export function variantAnswers(variant: Variant): Remap {
  const replaced = new Map<ErrorAnswer, ErrorAnswer>();
  const refuse = (ours: ErrorAnswer, chosen: Refusal | 'clamp') => {
    if (chosen === 'clamp' || (chosen.status === ours.status && chosen.code === ours.code)) return;
    replaced.set(ours, errorAnswer(chosen.status, chosen.code, ours.message, headersFor(ours, chosen)));
  };
  refuse(MISSING_KEY, variant.missingKey);
  for (const malformed of MALFORMED_KEY_ANSWERS) refuse(malformed, variant.malformedKey);
  refuse(INVALID_KEY, variant.unknownKey);
  refuse(REVOKED_KEY, variant.revokedKey);
  refuse(INVALID_LIMIT, variant.badLimit);
  refuse(MALFORMED_WALK_ID, variant.malformedId);
  refuse(NO_SUCH_ENDPOINT, variant.unknownPath);
  refuse(METHOD_NOT_ALLOWED, variant.otherMethod);
  if (replaced.size === 0) return OUR_ANSWERS;
  return (answer) => replaced.get(answer) ?? answer;
}

/** A 401 challenges (RFC 9110 §15.5.2), a 405 says what is allowed (§15.5.6); other statuses neither. */
function headersFor(ours: ErrorAnswer, chosen: Refusal): Record<string, string> {
  const headers: Record<string, string> = {};
  const challenge = ours.headers['WWW-Authenticate'] ?? MISSING_KEY.headers['WWW-Authenticate'];
  if (chosen.status === 401 && challenge) headers['WWW-Authenticate'] = challenge;
  if (chosen.status === 405) headers.Allow = METHOD_NOT_ALLOWED.headers.Allow as string;
  return headers;
}
