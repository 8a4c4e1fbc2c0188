/**
 * A worker thread of `--traffic` (`judge-pool.ts`): takes batches of entry bytes, judges each entry
 * on its own (`EntryJudges`, the main thread's own code) and answers the verdicts, batch by batch
 * in the order they came. It says when it is ready, so the main thread judges meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type EntryJudgeOptions, EntryJudges } from './entry-verdict.ts';
import type { BatchMessage, WorkerMessage } from './judge-pool.ts';

const port = parentPort;
if (!port) throw new Error('judge-worker.ts runs as a worker thread of --traffic');
const judges = new EntryJudges((workerData as { options: EntryJudgeOptions }).options);

async function judged(message: BatchMessage): Promise<WorkerMessage> {
  const { batch, first, bytes, ends } = message;
  try {
    const entries = ends.map((end, i) => new Uint8Array(bytes, ends[i - 1] ?? 0, end - (ends[i - 1] ?? 0)));
    return { batch, verdicts: await judges.judgeAll(entries, first) };
  } catch (error) {
    return { batch, error: (error as Error).message };
  }
}

// One batch at a time, in the order they came.
let last = Promise.resolve();
port.on('message', (message: BatchMessage) => {
  last = last.then(async () => port.postMessage(await judged(message)));
});
port.postMessage({ ready: true } satisfies WorkerMessage);
