/** `spec:diff` run as `npm run spec:diff` runs it (tsx, from the repository root), for the tests. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const run = promisify(execFile);

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export async function specDiff(args: string[], cwd = ROOT): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd,
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { status: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
