/** Runs one of the project's tools as a child process, collecting its exit status and output. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ToolRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** `command` with `args` from the repository root; a tool that cannot start gives status 127. */
export function runTool(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: ROOT,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        const status = error === null ? 0 : typeof code === 'number' ? code : 127;
        resolve({
          status,
          stdout: String(stdout),
          stderr: String(stderr || (error && status === 127 ? error.message : '')),
        });
      },
    );
  });
}

/** A binary of node_modules/.bin. */
export function bin(name: string): string {
  return fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
}

/** Output lines worth showing: no colours, no blank runs, at most `max`. */
export function keptLines(text: string, max = 20): string[] {
  const lines = text
    // eslint-disable-next-line no-control-regex -- strips ANSI colour codes
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  return lines.length > max ? [...lines.slice(0, max), `… and ${lines.length - max} more lines`] : lines;
}
