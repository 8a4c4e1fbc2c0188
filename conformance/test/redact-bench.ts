/**
 * What redaction costs: `npx tsx conformance/test/redact-bench.ts` prints the CPU time of one
 * redactor call (the demo keys, as a run against the reference server has them) on a --har-sized
 * text without a key, on the same text with one key in the middle, on the same text with a piece of a
 * key echoed every ~2 KB (as a target that echoes part of the key in a header has it), and on a
 * report's worth of short lines. A benchmark to print figures, never a timed test: CPU time on a shared machine varies.
 */
import { demoCredentials, generateDataset } from '../../fixtures/index.ts';
import { redactorFor } from '../core/redact.ts';

/** About the size of a --har file of one suite run. */
const LARGE_TEXT_BYTES = 4_000_000;
const SHORT_LINES = 5_000;
const ROUNDS = 9;

/** The median CPU milliseconds (user + system) of `task` over `ROUNDS` rounds, after a warm-up. */
function cpuMs(task: () => unknown): number {
  task();
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    task();
    const used = process.cpuUsage(before);
    rounds.push((used.user + used.system) / 1000);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
}

function main(): void {
  const keys = demoCredentials();
  const redact = redactorFor(keys);
  const walks = JSON.stringify(generateDataset().walks, null, 2);
  const large = walks.repeat(Math.ceil(LARGE_TEXT_BYTES / walks.length)).slice(0, LARGE_TEXT_BYTES);
  const middle = large.length / 2;
  const withKey = `${large.slice(0, middle)}${keys.CONFORMANCE_API_KEY}${large.slice(middle)}`;
  const piece = keys.CONFORMANCE_API_KEY.slice(20, 32);
  const echoed = (large.match(/[^]{1,2000}/g) ?? []).join(` ${piece} `);
  const lines = Array.from({ length: SHORT_LINES }, (_, i) => walks.slice(i * 97, i * 97 + 200));
  if (redact(large) !== large) throw new Error('the text without a key came back changed');
  if (redact(withKey).includes(keys.CONFORMANCE_API_KEY)) throw new Error('the key came back');
  if (redact(echoed).includes(piece)) throw new Error('a piece came back');
  const mb = (large.length / 1e6).toFixed(1);
  console.log(`redactor of ${Object.keys(keys).length} keys, median CPU of ${ROUNDS} rounds:`);
  console.log(`  ${mb} MB without a key:   ${cpuMs(() => redact(large)).toFixed(1)} ms`);
  console.log(`  ${mb} MB with one key:    ${cpuMs(() => redact(withKey)).toFixed(1)} ms`);
  const echoes = echoed.split(piece).length - 1;
  console.log(`  ${mb} MB, ${echoes} pieces: ${cpuMs(() => redact(echoed)).toFixed(1)} ms`);
  console.log(`  ${SHORT_LINES} lines of 200 chars: ${cpuMs(() => lines.map(redact)).toFixed(1)} ms`);
}

main();
