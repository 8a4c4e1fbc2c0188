/**
 * `npm run sandbox:bench [-- --no-image] [--rounds N]`: what the partners' sandbox costs. A full
 * canvassing day (`--clock`) advanced in 24 one-hour steps on the reference server in this
 * process, each step followed by the 200-walk list (the first request after a step rebuilds the
 * answers): the whole day's wall time and the slowest step, median of the rounds. Then, where
 * podman can run, the image of the repository's Dockerfile on a base made here
 * (`sandbox-image.ts`): the time to build it, its size, and the time from `podman run` to the
 * first answer of both servers. Each stage says on stderr what it is doing (the build takes
 * minutes); the images it built, under tags of this run's own, are removed at the end.
 */
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandSpec, integerFlag, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { freePort } from '../../command-line/free-port.ts';
import { median } from '../measure/statistics.ts';
import { startReferenceServer } from '../../reference-server/start.ts';
import {
  buildNodeBase,
  buildSandboxImage,
  imageBytes,
  podmanEnv,
  podmanMissing,
  removeImages,
  runSandboxImage,
} from './sandbox-image.ts';

/** A stage of the bench, on stderr so the figures alone go to stdout. */
const progress = (what: string) => process.stderr.write(`sandbox:bench: ${what}\n`);

const COMMAND = {
  name: 'sandbox:bench',
  usage: 'npm run sandbox:bench -- [--no-image] [--rounds N]',
  summary:
    'Times a canvassing day in 24 one-hour steps, and the sandbox image: its build, size and first answer.',
  flags: {
    'no-image': { type: 'boolean', help: 'Only the day: no image build' },
    rounds: { type: 'string', value: 'N', help: 'Days advanced, 1 to 20 (default 5)' },
  },
} as const satisfies CommandSpec;

const HOURS = 24;

/** One day in one-hour steps: its wall time and its slowest step, in milliseconds. */
async function oneDay(): Promise<{ dayMs: number; slowestStepMs: number }> {
  const server = await startReferenceServer({ log: false, clock: { rate: 0 } });
  try {
    const headers = { authorization: `Bearer ${server.credentials.CONFORMANCE_API_KEY}` };
    const steps: number[] = [];
    for (let hour = 0; hour < HOURS; hour++) {
      const started = performance.now();
      const moved = await fetch(`${server.baseUrl}/sandbox/clock`, {
        method: 'POST',
        body: JSON.stringify({ advance: '1h' }),
      });
      await moved.body?.cancel();
      const list = await fetch(`${server.baseUrl}/api/v1/walks?limit=200`, { headers });
      await list.arrayBuffer();
      if (!moved.ok || !list.ok) throw new Error(`hour ${hour + 1}: ${moved.status} ${list.status}`);
      steps.push(performance.now() - started);
    }
    return { dayMs: steps.reduce((a, b) => a + b, 0), slowestStepMs: Math.max(...steps) };
  } finally {
    await server.close();
  }
}

async function imageFigures(): Promise<Record<string, number | string>> {
  const missing = await podmanMissing();
  if (missing) return { image: `not measured: ${missing}` };
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'));
  const env = podmanEnv(dir);
  const run = `bench-${process.pid}`;
  const tags = {
    base: `localhost/canvassing-node-base:${run}`,
    image: `localhost/canvassing-sandbox:${run}`,
  };
  try {
    const started = performance.now();
    progress(`building the base image ${tags.base} (Debian's libraries, Node 22 from npm)`);
    await buildNodeBase(env, tags.base);
    progress(`building the sandbox image ${tags.image} from the Dockerfile (minutes)`);
    await buildSandboxImage(env, tags.base, tags.image);
    const buildMs = performance.now() - started;
    progress(`built in ${round(buildMs / 1000)} s; running it until both servers answer`);
    const running = await runSandboxImage(
      env,
      { sandbox: await freePort(), mock: await freePort() },
      [],
      tags.image,
    );
    await running.stop();
    return {
      image_build_s: round(buildMs / 1000),
      image_mb: round((await imageBytes(env, tags.image)) / 1e6),
      image_first_answer_ms: Math.round(running.firstAnswerMs),
    };
  } finally {
    progress(`removing ${tags.image} and ${tags.base}`);
    await removeImages(env, [tags.image, tags.base]);
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

async function main(argv: string[]): Promise<number> {
  const options = optionsOrExit(COMMAND, argv, (args) => {
    const { values } = readFlags(COMMAND, args);
    if (values.help) return 'help' as const;
    return {
      image: !values['no-image'],
      rounds: integerFlag('--rounds', values.rounds, { min: 1, max: 20 }, 5),
    };
  });
  if (typeof options === 'number') return options;
  const days = [];
  for (let round = 0; round < options.rounds; round++) {
    progress(`canvassing day ${round + 1} of ${options.rounds}, in ${HOURS} one-hour steps`);
    days.push(await oneDay());
  }
  const figures: Record<string, number | string> = {
    day_in_24_steps_ms: Math.round(median(days.map((day) => day.dayMs))),
    slowest_step_ms: Math.round(median(days.map((day) => day.slowestStepMs))),
    rounds: options.rounds,
  };
  if (options.image) Object.assign(figures, await imageFigures());
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`sandbox:bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
