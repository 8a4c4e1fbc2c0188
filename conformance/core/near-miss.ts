/**
 * Ground layer: keys one edit away from a real one, derived at run time from the
 * configured key and never stored or printed. A deployment that compares only part of a key (a
 * prefix, a truncated hash input, a case-folded body) accepts one of them; a correct one refuses
 * them all. Reports name a near miss by the key's variable and the edit (`nearMissLabel`).
 */
import { KEY_PREFIX } from '../../spec/facts.ts';

export const NEAR_MISSES = [
  'last-changed',
  'middle-changed',
  'dropped',
  'appended',
  'case-flipped',
  'bare-prefix',
] as const;
export type NearMiss = (typeof NEAR_MISSES)[number];

const LABELS: Record<NearMiss, string> = {
  'last-changed': 'its last character changed',
  'middle-changed': 'a character in the middle changed',
  dropped: 'its last character dropped',
  appended: 'one character appended',
  'case-flipped': "its body's letter case flipped",
  'bare-prefix': `the bare prefix ${KEY_PREFIX}`,
};

/** How reports show a near miss of `name`: `$CONFORMANCE_API_KEY with its last character changed`. */
export function nearMissLabel(name: string, miss: NearMiss): string {
  return miss === 'bare-prefix' ? LABELS[miss] : `$${name} with ${LABELS[miss]}`;
}

/** Another character of the same kind (digit, lower or upper case letter), so the shape still holds. */
function otherCharacter(c: string): string {
  if (/[0-8]/.test(c)) return String(Number(c) + 1);
  if (c === '9') return '0';
  if (/[a-y]/.test(c)) return String.fromCharCode(c.charCodeAt(0) + 1);
  if (c === 'z') return 'a';
  if (/[A-Y]/.test(c)) return String.fromCharCode(c.charCodeAt(0) + 1);
  if (c === 'Z') return 'A';
  return c === 'x' ? 'y' : 'x';
}

function flipCase(text: string): string {
  return [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

/** The body after the prefix (the whole key when it lacks the prefix). */
const bodyStart = (key: string) => (key.startsWith(KEY_PREFIX) ? KEY_PREFIX.length : 0);

/**
 * The near miss of `key`, or undefined when the edit leaves it unchanged (a body without letters
 * has no case to flip; a key that is only the prefix has no body to edit).
 */
export function nearMissOf(key: string, miss: NearMiss): string | undefined {
  const from = bodyStart(key);
  if (key.length <= from) return undefined;
  const middle = from + Math.floor((key.length - from) / 2);
  const derived = {
    'last-changed': () => `${key.slice(0, -1)}${otherCharacter(key.at(-1) as string)}`,
    'middle-changed': () =>
      `${key.slice(0, middle)}${otherCharacter(key[middle] as string)}${key.slice(middle + 1)}`,
    dropped: () => key.slice(0, -1),
    appended: () => `${key}${otherCharacter(key.at(-1) as string)}`,
    'case-flipped': () => `${key.slice(0, from)}${flipCase(key.slice(from))}`,
    'bare-prefix': () => KEY_PREFIX,
  }[miss]();
  return derived === key ? undefined : derived;
}
