/**
 * The soak's target, in its own process (started with `--expose-gc`): the reference server on a
 * free port, without request logs. The parent talks to it over the IPC channel: `measure` collects
 * garbage and answers with the memory figures; the parent stops it with SIGTERM.
 */
import { startReferenceServer } from '../../reference-server/start.ts';

export type ToServer = { type: 'measure' };
export type FromServer =
  | { type: 'ready'; baseUrl: string }
  | { type: 'memory'; rssBytes: number; heapUsedBytes: number }
  | { type: 'failed'; message: string };

const send = (message: FromServer) => process.send?.(message);
const rate = Number(process.env.SOAK_RATE_LIMIT ?? 0);

try {
  const server = await startReferenceServer({
    port: 0,
    log: false,
    ...(rate > 0 ? { rateLimit: { requestsPerMinute: rate } } : {}),
  });
  process.on('message', (message: ToServer) => {
    if (message.type === 'measure') {
      // Twice: the first pass can leave objects that only the second finds unreachable.
      globalThis.gc?.();
      globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      send({ type: 'memory', rssBytes: rss, heapUsedBytes: heapUsed });
    }
  });
  // The parent went away: do not linger.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', baseUrl: server.baseUrl });
} catch (error) {
  send({ type: 'failed', message: (error as Error).message });
  process.exit(1);
}
