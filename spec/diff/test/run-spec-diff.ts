/**
 * `spec:diff` for the tests: in-process through the command's main() (cli.ts), with the real
 * engine run once per pair of documents; or as `npm run spec:diff` runs it (the launcher, main.ts, from
 * the repository root), where the process itself, its streams and its exit status, is under test.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LAUNCHER } from '../../../command-line/launch.js';
import { main } from '../cli.ts';
import { rememberedEngine } from './remembered-engine.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const run = promisify(execFile);

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** The command in this process, from the current directory (the repository root under vitest). */
export async function specDiff(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (text: string) => (stdout += text), stderr: (text: string) => (stderr += text) };
  const status = await main(args, io, rememberedEngine);
  return { status, stdout, stderr };
}

/** The command as its own process, which runs its own Redocly. */
export async function specDiffProcess(args: string[], cwd = ROOT): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [LAUNCHER, MAIN, ...args], {
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
