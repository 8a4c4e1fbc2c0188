// @ts-check
/**
 * Starts a TypeScript worker module from source (`judge-pool.ts` gives its URL as `entry`): tsx
 * compiles the main thread's modules but not a worker's, so the worker registers tsx's loader
 * through its public API first. Plain JavaScript, because it runs before anything can compile
 * TypeScript. The packaged CLI starts its bundled worker directly and never loads this file.
 */
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(/** @type {{ entry: string }} */ (workerData).entry);
