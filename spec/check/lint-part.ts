/** Part 1: the new spec lints clean under Spectral and Redocly, as `npm run lint:spec` lints it. */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { PLANNED_SPEC_PATH } from '../facts.ts';
import { bin, keptLines, ROOT, runTool } from './run-tool.ts';
import type { PartResult } from './types.ts';

/** The spec, and the planned spec when it sits beside it (a change in `spec/` can touch either). */
function specsToLint(specPath: string): string[] {
  const planned = join(dirname(specPath), PLANNED_SPEC_PATH.split(/[\\/]/).at(-1) ?? '');
  return existsSync(planned) && planned !== specPath ? [specPath, planned] : [specPath];
}

export async function lintPart(specPath: string): Promise<PartResult> {
  const files = specsToLint(specPath);
  const [spectral, redocly] = await Promise.all([
    runTool(bin('spectral'), ['lint', '--fail-severity=warn', ...files]),
    runTool(bin('redocly'), ['lint', ...files], {
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
    }),
  ]);
  const named = files.map(shownPath).join(', ');
  const failed = [
    spectral.status === 0 ? undefined : { tool: 'Spectral', run: spectral },
    redocly.status === 0 ? undefined : { tool: 'Redocly', run: redocly },
  ].filter((entry) => entry !== undefined);
  if (failed.length === 0) {
    return {
      name: 'lint',
      status: 'pass',
      summary: `Spectral and Redocly find no problem in ${named}`,
      details: [],
    };
  }
  return {
    name: 'lint',
    status: failed.some(({ run }) => run.status === 127) ? 'error' : 'fail',
    summary: `${failed.map(({ tool }) => tool).join(' and ')} ${failed.length === 1 ? 'reports' : 'report'} problems in ${named}`,
    details: failed.flatMap(({ tool, run }) => [
      `${tool}:`,
      ...keptLines(`${run.stdout}\n${run.stderr}`).map((l) => `  ${l}`),
    ]),
  };
}

/** Paths inside the repository relative to it, others as given. */
function shownPath(file: string): string {
  const inside = relative(ROOT, file);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : file;
}
