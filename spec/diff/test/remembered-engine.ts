/**
 * The diff engine for the tests: a real `redocly diff` run (runEngine), made once per pair of
 * documents in a test process and handed again to every test that compares the same two texts
 * (the same break in text, Markdown and JSON, or under each acknowledgement file). Redocly's
 * report depends on the two documents alone: the file names it prints are replaced by the
 * spec's label when a change is classified (classify.ts). A failed run is never reused, since its
 * message names its own files.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { runEngine, type Engine } from '../engine.ts';
import type { EngineReport } from '../types.ts';

const runs = new Map<string, Promise<EngineReport>>();

export const rememberedEngine: Engine = async (basePath, headPath) => {
  const key = `${digestOf(basePath)} ${digestOf(headPath)}`;
  let run = runs.get(key);
  if (!run) {
    run = runEngine(basePath, headPath);
    runs.set(key, run);
    run.catch(() => runs.delete(key));
  }
  // Each caller gets its own copy, so no test can change what another one reads.
  return structuredClone(await run);
};

function digestOf(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
