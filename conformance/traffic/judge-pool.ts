/**
 * Judging a large recording on every core: the main thread reads the file and cuts it into
 * entries (`scanHarFile`), hands batches of them to worker threads (`judge-worker.ts`), which parse
 * and judge each entry on its own, and merges the verdicts in file order (`run.ts`). Whenever no
 * worker has room (while they start, or when they are behind) the main thread judges the batch
 * itself, with the same code: it is never idle waiting for them. On a machine whose cores are busy
 * with other work, workers gain nothing; the wall time is what they are for.
 *
 * Workers are public `node:worker_threads`, running one bundled module (`worker-module.ts`).
 * Every worker is terminated when the run ends, however it ends.
 */
import { Worker } from 'node:worker_threads';
import {
  type EntryJudgeOptions,
  type EntryJudges,
  type EntryVerdict,
  RepeatedLists,
} from './entry-verdict.ts';
import { scanHarFile } from './har-entries.ts';
import { workerModule } from './worker-module.ts';

/** Entries and bytes per batch: few enough messages to cost nothing, small enough to share the work evenly. */
const BATCH_ENTRIES = 64;
const BATCH_BYTES = 2 * 1024 * 1024;
/** Batches a worker holds at once: one it judges, one waiting, so it never waits for the main thread. */
const WORKER_DEPTH = 2;
/**
 * Batches the main thread may judge ahead of a worker's it waits to merge: their verdicts are small
 * (a few KB an entry), so it goes on judging while a worker is slow (its core busy with other work).
 */
const HELD_AHEAD = 16;

/** What the main thread sends a worker, and what it answers. */
export interface BatchMessage {
  batch: number;
  first: number;
  bytes: ArrayBuffer;
  /** Where each entry ends in `bytes`. */
  ends: number[];
}
export type WorkerMessage =
  { ready: true } | { batch: number; verdicts: EntryVerdict[] } | { batch: number; error: string };

interface Slot {
  worker: Worker;
  ready: boolean;
  pending: Map<number, Batch>;
}

/** A batch of consecutive entries, and its verdicts once judged. */
interface Batch {
  id: number;
  /** Who judged it: a worker's thread id, or `main`. */
  thread: string;
  done: boolean;
  verdicts?: EntryVerdict[];
  error?: Error;
  settled: Promise<void>;
  settle: () => void;
}

/** A promise and what settles it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

function newBatch(id: number): Batch {
  const { promise, resolve } = signal();
  const batch: Batch = {
    id,
    thread: 'main',
    done: false,
    settled: promise,
    settle: () => {
      batch.done = true;
      resolve();
    },
  };
  return batch;
}

class JudgePool {
  private readonly slots: Slot[] = [];
  /** The first thing that went wrong with a worker: the run stops on it. */
  failure: Error | undefined;
  /** Settles at the next change of a worker (ready, answered, failed). */
  private change = signal();
  private readonly starting: Promise<void>;
  private closed = false;

  /** Starts the workers once their module is at hand; batches go to the main thread meanwhile. */
  constructor(workers: number, options: EntryJudgeOptions) {
    this.starting = workerModule().then(
      (url) => {
        if (!this.closed)
          for (let i = 0; i < workers; i++)
            // No options of the main thread's (tsx's loader among them): the module is plain JavaScript.
            this.slots.push(this.slot(new Worker(url, { workerData: { options }, execArgv: [] })));
      },
      (error: Error) => {
        this.failure ??= new Error(`the judging workers could not start: ${error.message}`);
        this.changed();
      },
    );
  }

  private slot(worker: Worker): Slot {
    const slot: Slot = { worker, ready: false, pending: new Map() };
    worker.on('message', (message: WorkerMessage) => {
      if ('ready' in message) slot.ready = true;
      else this.answered(slot, message);
      this.changed();
    });
    worker.on('error', (error) => this.fail(slot, error));
    worker.on('exit', (code) => this.fail(slot, new Error(`a judging worker stopped (exit code ${code})`)));
    return slot;
  }

  private answered(slot: Slot, message: Exclude<WorkerMessage, { ready: true }>): void {
    const batch = slot.pending.get(message.batch);
    if (!batch) return;
    slot.pending.delete(message.batch);
    if ('error' in message) batch.error = new Error(message.error);
    else batch.verdicts = message.verdicts;
    batch.settle();
  }

  private changed(): void {
    this.change.resolve();
    this.change = signal();
  }

  /** The next worker with room for a batch, waiting for one; throws when a worker failed. */
  async nextFree(): Promise<Slot> {
    for (;;) {
      if (this.failure) throw this.failure;
      const slot = this.free();
      if (slot) return slot;
      await this.change.promise;
    }
  }

  private fail(slot: Slot, error: Error): void {
    this.failure ??= new Error(`a judging worker failed: ${error.message}`);
    this.changed();
    slot.ready = false;
    for (const batch of slot.pending.values()) {
      batch.error = this.failure;
      batch.settle();
    }
    slot.pending.clear();
  }

  /** A started worker with room for another batch, the least busy; undefined when none has. */
  free(): Slot | undefined {
    const ready = this.slots.filter((s) => s.ready && s.pending.size < WORKER_DEPTH);
    return ready.sort((a, b) => a.pending.size - b.pending.size)[0];
  }

  /** Hands the entries to the worker: their bytes are copied once into a buffer it takes over. */
  send(slot: Slot, batch: Batch, first: number, entries: readonly Buffer[]): void {
    const size = entries.reduce((n, e) => n + e.length, 0);
    const bytes = new ArrayBuffer(size);
    const view = new Uint8Array(bytes);
    const ends: number[] = [];
    let at = 0;
    for (const entry of entries) {
      view.set(entry, at);
      at += entry.length;
      ends.push(at);
    }
    slot.pending.set(batch.id, batch);
    batch.thread = String(slot.worker.threadId);
    const message: BatchMessage = { batch: batch.id, first, bytes, ends };
    slot.worker.postMessage(message, [bytes]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.starting;
    await Promise.all(
      this.slots.map((slot) => {
        slot.worker.removeAllListeners('exit');
        return slot.worker.terminate();
      }),
    );
  }
}

export interface PoolRun {
  file: string;
  workers: number;
  options: EntryJudgeOptions;
  /**
   * The main thread's own judge, judging a batch whenever no worker has room; without it the
   * workers judge every entry and the main thread only reads and merges.
   */
  local?: EntryJudges;
  /** Takes the verdicts, one entry at a time, in file order. */
  onVerdict: (verdict: EntryVerdict) => void;
}

/** The entries of the file in batches, judged by the pool (or the main thread), merged in file order. */
class BatchedRun {
  private readonly queue: Batch[] = [];
  private readonly repeats = new RepeatedLists();
  private batches = 0;
  private next = 1;
  private entries: Buffer[] = [];
  private bytes = 0;
  /** Entries handed to the workers. */
  onWorkers = 0;

  private readonly run: PoolRun;
  private readonly pool: JudgePool;

  constructor(run: PoolRun, pool: JudgePool) {
    this.run = run;
    this.pool = pool;
  }

  /** Takes the entries a chunk closed, handing on each batch as it fills. */
  async take(closed: Buffer[]): Promise<void> {
    for (const entry of closed) {
      this.entries.push(entry);
      this.bytes += entry.length;
      if (this.entries.length >= BATCH_ENTRIES || this.bytes >= BATCH_BYTES) await this.dispatch();
    }
  }

  /** The last batch handed on and every verdict merged. */
  async finish(): Promise<void> {
    if (this.entries.length > 0) await this.dispatch();
    await this.merge(true);
  }

  private async dispatch(): Promise<void> {
    const { pool, run } = this;
    if (pool.failure) throw pool.failure;
    const batch = newBatch(this.batches++);
    const [first, taken] = [this.next, this.entries];
    this.next += taken.length;
    this.entries = [];
    this.bytes = 0;
    this.queue.push(batch);
    const slot = run.local ? pool.free() : await pool.nextFree();
    if (slot) {
      pool.send(slot, batch, first, taken);
      this.onWorkers += taken.length;
    } else {
      batch.verdicts = await run.local?.judgeAll(taken, first);
      batch.settle();
    }
    await this.merge(false);
  }

  /** Merges the verdicts in file order: those at hand, or all (waiting) when too many are held or at the end. */
  private async merge(all: boolean): Promise<void> {
    const held = this.run.workers * WORKER_DEPTH + HELD_AHEAD;
    const { queue } = this;
    while (queue.length > 0 && (all || queue.length > held || queue[0]?.done)) {
      const batch = queue[0] as Batch;
      await batch.settled;
      queue.shift();
      if (batch.error) throw batch.error;
      for (const verdict of batch.verdicts ?? [])
        this.run.onVerdict(this.repeats.resolve(batch.thread, verdict));
    }
  }
}

/**
 * Judges every entry of the file with `workers` worker threads beside the main thread; returns
 * how many entries the workers judged.
 */
export async function judgeWithWorkers(run: PoolRun): Promise<number> {
  const pool = new JudgePool(run.workers, run.options);
  const batched = new BatchedRun(run, pool);
  let merging: unknown;
  const take = async (closed: Buffer[]) => {
    try {
      await batched.take(closed);
    } catch (error) {
      merging = error;
      throw error;
    }
  };
  try {
    let notHar: unknown;
    try {
      await scanHarFile(run.file, take);
    } catch (error) {
      if (error === merging) throw error;
      // Where the file stops being HAR: an entry before it that is not JSON is named first.
      notHar = error;
    }
    await batched.finish();
    if (notHar) throw notHar;
    return batched.onWorkers;
  } finally {
    await pool.close();
  }
}
