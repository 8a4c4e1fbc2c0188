/**
 * Child process of the benchmark: the reference server's in-process start-up, as the conformance
 * suite and the sandbox do it (generate the data set, `createRequestListener`, listen), timed up to the first
 * HTTP answer. Prints one JSON line with the time and the resident memory once serving.
 */
import { createRequestListener } from '../../reference-server/app.ts';
import { createHttpServer } from '../../reference-server/start.ts';
import { generateDataset } from '../../fixtures/index.ts';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { walksOrExit } from './walks-argument.ts';

const options = walksOrExit(
  'start-in-process.ts',
  'Starts the reference server in-process on WALKS walks; prints the time to its first answer as JSON.',
  process.argv.slice(2),
);
if (typeof options === 'number') process.exit(options);
const { walks } = options;
const started = performance.now();
const dataset = generateDataset({ walks });
const generatedMs = performance.now() - started;
const server = createHttpServer(createRequestListener({ dataset, config: { log: false } }));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const status = await new Promise<number>((resolve, reject) => {
  request(`http://127.0.0.1:${port}/api/v1/walks`, (res) => {
    res.resume();
    res.once('end', () => resolve(res.statusCode ?? 0));
  })
    .once('error', reject)
    .end();
});
const startupMs = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({
    walks,
    status,
    startupMs,
    generationMs: generatedMs,
    rssMb: process.memoryUsage().rss / 2 ** 20,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
server.close();
