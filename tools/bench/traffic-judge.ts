/**
 * The judging half of `npm run conformance:traffic-bench`, in a process of its own so its memory
 * is the judge's alone: judges the HAR file it is given with `--traffic`'s run and prints one JSON
 * line of figures (wall and CPU time of every thread, exchanges judged and by how many workers,
 * peak RSS and the main thread's peak heap, sampled while it runs).
 */
import { runTraffic } from '../../conformance/run/traffic.ts';
import { RULES } from '../../conformance/rules/registry.ts';
import { specModelFor } from '../../conformance/runner.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: traffic-judge.ts FILE.har');

let peakHeap = 0;
const sample = () => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed));
const sampler = setInterval(sample, 20);
const started = performance.now();
const cpu = process.cpuUsage();
const { report } = await runTraffic(specModelFor(), { file, strict: false, seed: 1, keys: {} }, RULES);
const ms = performance.now() - started;
const { user, system } = process.cpuUsage(cpu);
clearInterval(sampler);
sample();
const traffic = report.coverage?.traffic;
process.stdout.write(
  `${JSON.stringify({
    exchanges: traffic?.entries ?? 0,
    judged: traffic?.judged ?? 0,
    workers: 0,
    onWorkers: 0,
    ms,
    // Every thread's, workers' too. On a shared machine the wall time includes waiting for a core.
    cpuMs: (user + system) / 1000,
    // resourceUsage().maxRSS is in kilobytes.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peakHeap / 1024 / 1024,
    verdict: report.summary.verdict,
  })}\n`,
);
