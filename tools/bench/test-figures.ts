/**
 * What `npm run bench:tests` reads: the test count of vitest's closing summary, and the source
 * lines of a commit by top-level folder, tests and generated files apart.
 */

const ANSI = new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g');

/**
 * The test count of vitest's closing summary, `Tests  3 failed | 1298 passed (1301)`: the number in
 * brackets, and the failures before it. The last such line counts (a run prints one).
 */
export function testsOf(output: string): { tests: number; failed: number } | undefined {
  const lines = [...output.replace(ANSI, '').matchAll(/^\s*Tests\s+(.*?)\((\d+)\)\s*$/gm)];
  const last = lines.at(-1);
  if (!last) return undefined;
  const failed = /(\d+) failed/.exec(last[1] ?? '');
  return { tests: Number(last[2]), failed: failed ? Number(failed[1]) : 0 };
}

export interface FolderLines {
  source: number;
  tests: number;
  generated: number;
}

const TEST = /(^|\/)test\/|\.test\.ts$/;
const GENERATED = /(^|\/)(generated|dist)\//;

/**
 * Lines per top-level folder (`tools/` counted apart from the product), from `git grep -c ''
 * COMMIT -- PATTERNS`: one `COMMIT:PATH:LINES` row per file. Files at the top level count as `.`.
 */
export function linesByFolder(grepCounts: string, commit: string): Record<string, FolderLines> {
  const table: Record<string, FolderLines> = {};
  for (const row of grepCounts.split('\n')) {
    if (!row.startsWith(`${commit}:`)) continue;
    const rest = row.slice(commit.length + 1);
    const at = rest.lastIndexOf(':');
    const path = rest.slice(0, at);
    const lines = Number(rest.slice(at + 1));
    const parts = path.split('/');
    const folder = parts.length === 1 ? '.' : `${parts[0]}/`;
    const entry = (table[folder] ??= { source: 0, tests: 0, generated: 0 });
    if (GENERATED.test(path)) entry.generated += lines;
    else if (TEST.test(path)) entry.tests += lines;
    else entry.source += lines;
  }
  return table;
}

/**
 * CPU seconds (user + system) of the children this process has waited for, from the text of
 * /proc/self/stat: fields 16 and 17 (cutime, cstime), in clock ticks. A child's own children count
 * once it has waited for them, as every part of `npm test` is waited for.
 */
export function childrenCpuS(stat: string, ticksPerSecond: number): number {
  // The command name (field 2) is in brackets and may hold spaces: count fields after its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cutime = Number(fields[13]);
  const cstime = Number(fields[14]);
  if (!Number.isFinite(cutime) || !Number.isFinite(cstime))
    throw new Error('no child CPU times in /proc/self/stat');
  return (cutime + cstime) / ticksPerSecond;
}
