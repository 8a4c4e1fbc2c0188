/**
 * The reference server as its own process (`main.ts` run as `npm run reference-server` runs it), for tests of what only a real
 * process shows: its log on stdout, flags, signals. Output is stdout and stderr together.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function startServerProcess(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['command-line/launch.js', 'reference-server/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { child, output: () => text };
}

/** The `url` of the server's `listening` record (written even with `--quiet`), waiting at most 30 s. */
export async function listeningUrl(output: () => string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const url = listeningLineOf(output())?.url;
    if (typeof url === 'string') return url;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server did not report listening: ${output().slice(0, 500)}`);
}

/** The server's `listening` line, parsed, once it has been written. */
function listeningLineOf(text: string): { url?: unknown } | undefined {
  const line = text.split('\n').find((candidate) => candidate.includes('"msg":"listening"'));
  return line === undefined ? undefined : (JSON.parse(line) as { url?: unknown });
}
