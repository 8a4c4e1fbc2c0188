/**
 * Durations the sandbox clock is moved by: `2h`, `30m`, `90s`, `1d`, or parts together in that
 * order (`1h30m`). Whole units only, so an advance names an exact number of seconds.
 */

/** The longest single advance: a month of simulated time is more than any test needs. */
const MAX_ADVANCE_SECONDS = 30 * 24 * 3600;

const DURATION = /^(?:(\d{1,7})d)?(?:(\d{1,7})h)?(?:(\d{1,7})m)?(?:(\d{1,7})s)?$/;
const UNIT_SECONDS = [86_400, 3_600, 60, 1] as const;

/** The seconds a duration names, or undefined when it is not one (or not above 0, or too long). */
export function durationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match || text.trim() === '') return undefined;
  let seconds = 0;
  UNIT_SECONDS.forEach((unit, i) => {
    seconds += Number(match[i + 1] ?? 0) * unit;
  });
  return seconds > 0 && seconds <= MAX_ADVANCE_SECONDS ? seconds : undefined;
}

/** `7260` → `2h1m`: how the clock reports how far the day has gone. */
export function durationText(seconds: number): string {
  let rest = Math.floor(seconds);
  const parts: string[] = [];
  for (const [unit, name] of [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'm'],
    [1, 's'],
  ] as const) {
    const count = Math.floor(rest / unit);
    rest -= count * unit;
    if (count > 0) parts.push(`${count}${name}`);
  }
  return parts.length === 0 ? '0s' : parts.join('');
}
