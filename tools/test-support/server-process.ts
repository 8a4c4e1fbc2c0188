/**
 * The reference server as its own process (`main.ts` run as `npm run reference-server` runs it),
 * for tests of what only a real process shows: its log on stdout, flags, signals. Output is stdout
 * and stderr together.
 */
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type ServerProcess = ReturnType<typeof startServerProcess>;

export function startServerProcess(args: string[]) {
  const child = execa(process.execPath, ['command-line/launch.js', 'reference-server/main.ts', ...args], {
    cwd: ROOT,
    env: { NO_COLOR: '1' },
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    // `stop()` sends SIGTERM; a server that has not exited 5 s later is killed.
    forceKillAfterDelay: 5_000,
  });
  let text = '';
  const waiters = new Set<() => void>();
  child.all.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters) wake();
  });

  /** The `url` of the server's `listening` line (written even with `--quiet`), once written. */
  const listening = () =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const url = listeningLineOf(text)?.url;
        if (typeof url !== 'string') return;
        waiters.delete(check);
        resolve(url);
      };
      waiters.add(check);
      check();
      void child.then(() => reject(new Error(`the server exited before listening: ${text.slice(0, 500)}`)));
    });

  /** SIGTERM, and the process's end (SIGKILL after a grace period). */
  const stop = async () => {
    child.kill();
    return child;
  };
  return { child, output: () => text, listening, stop };
}

/** The server's `listening` line, parsed, once it has been written. */
function listeningLineOf(text: string): { url?: unknown } | undefined {
  const line = text.split('\n').find((candidate) => candidate.includes('"msg":"listening"'));
  return line === undefined ? undefined : (JSON.parse(line) as { url?: unknown });
}
