/**
 * `--only` and `--skip`: which checks a run selects. A prefix that matches no check is a typo, not a
 * request to check nothing, so it is unusable configuration naming the nearest ids; a run that
 * would select nothing at all is too (a green run that checked nothing would be a lie).
 */
import { editDistance } from '../../command-line/flags.ts';
import { ConfigError } from '../core/config-error.ts';
import { formerIds } from '../core/renamed.ts';

/** How many of the nearest ids a message names. */
const NEAREST = 3;

export function selectChecks<C extends { id: string }>(
  checks: readonly C[],
  only: readonly string[] = [],
  skip: readonly string[] = [],
): C[] {
  const ids = checks.map((c) => c.id);
  // A prefix selects a check by its id now or by an id it had (`--only WALKS-LIST` in an older CI
  // line still selects the collection rules that were walks-list rules).
  const named = new Map(ids.map((id) => [id, [id, ...formerIds(id)]]));
  const matches = (id: string, prefix: string) => (named.get(id) ?? []).some((was) => was.startsWith(prefix));
  for (const [flag, prefixes] of [
    ['--only', only],
    ['--skip', skip],
  ] as const) {
    for (const prefix of prefixes) {
      if (ids.some((id) => matches(id, prefix))) continue;
      throw new ConfigError(
        `${flag} ${prefix} matches no check; nearest: ${nearestIds(prefix, ids).join(', ')} (--list shows them all)`,
      );
    }
  }
  const selected = checks.filter(
    (c) => (only.length === 0 || only.some((p) => matches(c.id, p))) && !skip.some((p) => matches(c.id, p)),
  );
  if (selected.length === 0) {
    throw new ConfigError(`--only ${only.join(',')} with --skip ${skip.join(',')} leaves no check to run`);
  }
  return selected;
}

/** The ids, and their area prefixes (`AUTH`, `COLLECTION`), closest to what was typed. */
function nearestIds(prefix: string, ids: readonly string[]): string[] {
  const candidates = new Set<string>();
  for (const id of ids) {
    candidates.add(id);
    candidates.add(id.replace(/-\d+$/, ''));
  }
  const distance = (candidate: string) =>
    Math.min(editDistance(prefix, candidate), editDistance(prefix, candidate.slice(0, prefix.length)) + 1);
  return [...candidates]
    .map((candidate) => ({ candidate, distance: distance(candidate) }))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, NEAREST)
    .map((entry) => entry.candidate);
}
