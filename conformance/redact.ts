/**
 * The last line of defence: every text the suite writes (console, reports, files) passes through a
 * redactor that replaces each configured key value with its variable name.
 */
import type { KeyName } from './config.ts';

export type Redactor = (text: string) => string;

export function redactorFor(...keySets: Partial<Record<KeyName, string>>[]): Redactor {
  const secrets = keySets
    .flatMap((keys) => Object.entries(keys))
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '')
    .flatMap(([name, value]) => variantsOf(value).map((variant) => [variant, `$${name}`] as const))
    .sort((a, b) => b[0].length - a[0].length);
  return (text) => {
    let out = text;
    for (const [secret, name] of secrets) out = out.replaceAll(secret, name);
    return out;
  };
}

/** The forms a key can take on its way into a text: as is, URL-encoded, JSON-escaped. */
function variantsOf(value: string): string[] {
  return [...new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])];
}
