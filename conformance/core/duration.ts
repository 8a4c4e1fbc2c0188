/**
 * A duration as a tester writes one (`90s`, `15m`, `1h`, `500ms`) and as reports show it. A bare
 * number is refused rather than guessed: `--max-duration 900` would be 900 ms to a flag counted in
 * milliseconds and a quarter of an hour to a person.
 */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, min: 60_000, h: 3_600_000 };

/** Milliseconds of `90s`, `15m`, `1h`, `2h30m`; undefined when it is not written so. */
export function parseDuration(raw: string): number | undefined {
  const text = raw.trim().toLowerCase();
  if (!/^(\d+(ms|s|min|m|h))+$/.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|min|m|h)/g))
    ms += Number(amount) * (UNITS[unit as string] as number);
  return ms;
}

/** `15m`, `90s`, `1h30m`, `500ms`: the shortest exact spelling. */
export function durationText(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms);
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}ms`);
  return parts.join('');
}
