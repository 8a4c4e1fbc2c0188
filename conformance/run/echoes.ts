/**
 * Whether an answer repeats a key its request carried (§5.4: a key is shown once, at creation),
 * whole or any run of `ECHO_RUN` characters of its body. The one place a run's judges meet key
 * values: the rules ask about a request's credentials and get a yes or no, never a value.
 */
import type { Credential } from '../core/credentials.ts';
import { nearMissOf } from '../core/near-miss.ts';
import type { KeyName } from '../core/roles.ts';

/** A run this long of a random key body cannot occur in an answer by chance. */
export const ECHO_RUN = 12;
/** Any run of ECHO_RUN characters holds a whole chunk of half its length at a multiple of it. */
const CHUNK = ECHO_RUN / 2;

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

export interface EchoSecrets {
  keys: Partial<Record<KeyName, string>>;
  /** The made-up key the run's client sent, when it sent one. */
  madeUpKey?: string;
  /** The prefix every key starts with: public, so never counted as an echo. */
  keyPrefix?: string;
}

/** The key bodies a request's credentials carried (those long enough to hold a secret run). */
function bodiesOf(credential: Credential, secrets: EchoSecrets): string[] {
  const strip = (value: string | undefined) =>
    value !== undefined && secrets.keyPrefix && value.startsWith(secrets.keyPrefix)
      ? value.slice(secrets.keyPrefix.length)
      : value;
  let values: (string | undefined)[];
  switch (credential.kind) {
    case 'key':
      values = [secrets.keys[credential.key]];
      break;
    case 'near-miss':
      values = [nearMissOf(secrets.keys[credential.key] ?? '', credential.miss)];
      break;
    case 'made-up':
      values = [secrets.madeUpKey];
      break;
    case 'two':
      return [...bodiesOf(credential.bearer, secrets), ...bodiesOf(credential.xApiKey, secrets)];
    default:
      values = [];
  }
  return values.map(strip).filter((body): body is string => body !== undefined && body.length >= ECHO_RUN);
}

/** The echo test of a run: whether `text` repeats a key `credential` carried. */
export function keyEcho(secrets: EchoSecrets): (credential: Credential, text: string) => boolean {
  return (credential, text) => bodiesOf(credential, secrets).some((body) => echoes(text, body));
}
