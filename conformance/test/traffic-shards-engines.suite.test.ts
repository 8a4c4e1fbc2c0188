/**
 * The shards of a day's recording as the batch engines the docs give run them: the GitHub Actions
 * workflow (`examples/shards/github-actions.yml`: a matrix of shards, their results uploaded as
 * artifacts, one merge job) and the Kubernetes Indexed Job (`examples/shards/kubernetes-job.yaml`:
 * `--shard $((JOB_COMPLETION_INDEX+1))/N` reading the recording from standard input). Neither
 * engine runs here: the workflow's `run` steps are run with GitHub's shell, job by job, the
 * artifacts copied between folders as the two artifact actions would; the Job's container command
 * is run with each completion index. The recording is streamed from a local HTTP server, as from
 * object storage. A shard that fails leaves its result missing, and the merge exits 2 naming it.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { LAUNCHER } from '../../command-line/launch.js';
import type { Report } from '../core/report-model.ts';
import { runCli } from './harness.ts';

const REPO = join(import.meta.dirname, '..', '..');
const EXAMPLES = join(REPO, 'conformance', 'examples', 'shards');

let reference: RunningServer;
let recordings: Server;
let dir: string;
let recordingUrl: string;
let wholeVerdict: Report['summary'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'traffic-shards-engines-'));
  reference = await startReferenceServer({ log: false });
  const har = join(dir, 'day.har');
  // A generous timeout: the machine running the tests may be busy, and a timeout is not the point here.
  const recorded = await runCli(
    ['--base-url', reference.baseUrl, '--har', har, '--quiet', '--timeout', '60000'],
    reference.credentials,
  );
  expect(recorded.status, recorded.stderr).toBe(0);
  const whole = join(dir, 'whole.json');
  await runCli(['--traffic', har, '--reporter', 'json', '--output', whole, '--quiet']);
  wholeVerdict = (JSON.parse(readFileSync(whole, 'utf8')) as Report).summary;
  // Object storage: the day's recording at one URL, nothing anywhere else.
  recordings = createServer((req, res) => {
    if (req.url !== '/day.har') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(har));
  });
  await new Promise<void>((listening) => recordings.listen(0, '127.0.0.1', listening));
  recordingUrl = `http://127.0.0.1:${(recordings.address() as AddressInfo).port}/day.har`;
}, 300_000);

afterAll(async () => {
  await reference?.close();
  if (recordings) {
    recordings.closeAllConnections();
    await new Promise((closed) => recordings.close(closed));
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Ran {
  exitCode: number;
  stderr: string;
}

/** A script run by bash with `env` added to this process's environment, in `cwd`. */
async function bash(flags: string[], script: string, cwd: string, env: Record<string, string>): Promise<Ran> {
  const ran = await execa('bash', [...flags, script], { cwd, env, reject: false, stdin: 'ignore' });
  return { exitCode: ran.exitCode ?? -1, stderr: String(ran.stderr) };
}

/** A merged verdict's summary, read from the report the merge wrote. */
const summaryIn = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as Report).summary;

describe('the GitHub Actions workflow', () => {
  interface Step {
    id?: string;
    if?: string;
    uses?: string;
    run?: string;
    env?: Record<string, string>;
    with?: Record<string, string | boolean>;
  }
  interface Job {
    needs?: string;
    if?: string;
    strategy?: { matrix: { shard: number[] } };
    steps: Step[];
  }
  const workflow = parse(readFileSync(join(EXAMPLES, 'github-actions.yml'), 'utf8')) as {
    env: Record<string, string | number>;
    defaults: { run: { shell: string } };
    jobs: { shard: Job; merge: Job };
  };
  const artifacts = () => join(dir, 'artifacts');

  /**
   * A runner's checkout of this repository: its files copied (a symlinked launcher would not know
   * itself), its installed packages linked, its own folders for what the job writes.
   */
  function checkout(name: string): string {
    const at = join(dir, name);
    mkdirSync(at);
    for (const entry of readdirSync(REPO)) {
      if (['.git', 'reports', 'shards'].includes(entry)) continue;
      if (entry === 'node_modules') symlinkSync(join(REPO, entry), join(at, entry));
      else cpSync(join(REPO, entry), join(at, entry), { recursive: true });
    }
    return at;
  }

  /**
   * One job on one runner: its `run` steps with GitHub's `bash` (`-eo pipefail`), a step skipped
   * once one failed unless its `if` says `always()`; `npm ci` is the checkout's install, done
   * already; the artifact actions copy folders. Returns whether the job succeeded.
   */
  async function runJob(job: Job, name: string, expressions: Record<string, string>): Promise<boolean> {
    expect(workflow.defaults.run.shell).toBe('bash');
    const cwd = checkout(name);
    const resolved = (text: string) =>
      text.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_all, name: string) => {
        const value = expressions[name];
        if (value === undefined) throw new Error(`the test does not resolve \${{ ${name} }}`);
        return value;
      });
    let failed = false;
    for (const step of job.steps) {
      if (failed && !step.if?.includes('always()')) continue;
      if (step.uses?.startsWith('actions/upload-artifact@')) {
        const target = join(artifacts(), resolved(String(step.with?.name)));
        cpSync(join(cwd, String(step.with?.path)), target, { recursive: true });
      } else if (step.uses?.startsWith('actions/download-artifact@')) {
        expect(step.with).toMatchObject({ pattern: 'shard-*', 'merge-multiple': true });
        const into = join(cwd, String(step.with?.path));
        mkdirSync(into, { recursive: true });
        for (const artifact of existsSync(artifacts()) ? readdirSync(artifacts()) : [])
          if (artifact.startsWith('shard-')) cpSync(join(artifacts(), artifact), into, { recursive: true });
      } else if (step.run && step.id !== 'install') {
        const env = Object.fromEntries(
          Object.entries({ ...workflow.env, ...step.env }).map(([k, v]) => [k, resolved(String(v))]),
        );
        const ran = await bash(
          ['--noprofile', '--norc', '-eo', 'pipefail', '-c'],
          resolved(step.run),
          cwd,
          env,
        );
        if (ran.exitCode !== 0) {
          failed = true;
          lastStderr.set(name, ran.stderr);
        }
      }
    }
    return !failed;
  }
  const lastStderr = new Map<string, string>();

  it("judges each shard of its matrix, and its merge job gives the whole recording's verdict; a failed shard is named missing", async () => {
    const { shard, merge } = workflow.jobs;
    const matrix = shard.strategy?.matrix.shard ?? [];
    expect(matrix).toHaveLength(Number(workflow.env.SHARDS));
    expect(merge).toMatchObject({ needs: 'shard', if: '${{ !cancelled() }}' });
    // Shard 3's download fails (its URL answers 404): bash's pipefail fails the job, nothing is uploaded.
    const ran = await Promise.all(
      matrix.map((n) =>
        runJob(shard, `shard-${n}`, {
          'matrix.shard': String(n),
          'secrets.RECORDING_URL': n === 3 ? `${recordingUrl}.gone` : recordingUrl,
        }),
      ),
    );
    expect(ran).toEqual(matrix.map((n) => n !== 3));
    expect(readdirSync(artifacts()).sort()).toEqual(['shard-1', 'shard-2', 'shard-4']);
    expect(await runJob(merge, 'merge-1', {})).toBe(false);
    expect(lastStderr.get('merge-1')?.split('\n')[0]).toMatch(/^conformance: --merge: shard 3\/4 missing/);
    // Shard 3 run again, and the merge again: the verdict judging the whole file gives.
    expect(
      await runJob(shard, 'shard-3-again', { 'matrix.shard': '3', 'secrets.RECORDING_URL': recordingUrl }),
    ).toBe(true);
    expect(await runJob(merge, 'merge-2', {})).toBe(true);
    expect(readdirSync(join(artifacts(), 'verdict'))).toEqual(['day.json']);
    expect(summaryIn(join(artifacts(), 'verdict', 'day.json'))).toEqual(wholeVerdict);
  }, 300_000);
});

describe('the Kubernetes Indexed Job', () => {
  interface Container {
    command: string[];
    args: string[];
    env: { name: string; value?: string }[];
    volumeMounts: { mountPath: string }[];
  }
  interface JobSpec {
    metadata: { name: string };
    spec: { completionMode?: string; completions?: number; template: { spec: { containers: Container[] } } };
  }
  const [shards, merge] = parseAllDocuments(readFileSync(join(EXAMPLES, 'kubernetes-job.yaml'), 'utf8')).map(
    (doc) => doc.toJS() as JobSpec,
  );

  /** The suite's bin by the name the image installs it under. */
  function binFolder(): string {
    const bin = join(dir, 'bin');
    if (existsSync(bin)) return bin;
    mkdirSync(bin);
    const script = join(bin, 'canvassing-conformance');
    writeFileSync(
      script,
      `#!/bin/sh\nexec "${process.execPath}" "${LAUNCHER}" "${join(REPO, 'conformance', 'main.ts')}" -- "$@"\n`,
      { mode: 0o755 },
    );
    return bin;
  }

  /** A container's command as the kubelet runs it, with the pod's environment; the volume is a folder here. */
  async function runContainer(job: JobSpec, results: string, env: Record<string, string>): Promise<Ran> {
    const [container] = job.spec.template.spec.containers;
    if (!container) throw new Error(`${job.metadata.name} has no container`);
    const declared = Object.fromEntries(
      container.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]),
    );
    // The results' folder is the volume mounted at the path the container writes to.
    expect(container.volumeMounts.map((m) => m.mountPath)).toContain(declared.RESULTS);
    const [shell, ...flags] = [...container.command, ...container.args.slice(0, -1)];
    expect(shell).toBe('bash');
    const ran = await execa(shell as string, [...flags, container.args.at(-1) as string], {
      env: { ...declared, ...env, RESULTS: results, PATH: `${binFolder()}:${process.env.PATH}` },
      reject: false,
      stdin: 'ignore',
    });
    return { exitCode: ran.exitCode ?? -1, stderr: String(ran.stderr) };
  }

  it('judges shard JOB_COMPLETION_INDEX+1 of N in each pod from standard input; the merge Job names a shard that failed', async () => {
    if (!shards || !merge) throw new Error("the example holds the shards' Job and the merge Job");
    expect(shards.spec.completionMode).toBe('Indexed');
    const n = shards.spec.completions ?? 0;
    const results = join(dir, 'volume');
    mkdirSync(results);
    // Pod 1 (shard 2) cannot read the recording: it fails and writes nothing.
    const pods = await Promise.all(
      Array.from({ length: n }, (_, index) =>
        runContainer(shards, results, {
          JOB_COMPLETION_INDEX: String(index),
          RECORDING_URL: index === 1 ? `${recordingUrl}.gone` : recordingUrl,
        }),
      ),
    );
    expect(pods.map((p) => p.exitCode === 0)).toEqual(Array.from({ length: n }, (_, i) => i !== 1));
    const refused = await runContainer(merge, results, {});
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`shard 2/${n} missing`));
    // The failed index run again, then the merge: the verdict judging the whole file gives.
    expect(
      (await runContainer(shards, results, { JOB_COMPLETION_INDEX: '1', RECORDING_URL: recordingUrl }))
        .exitCode,
    ).toBe(0);
    const merged = await runContainer(merge, results, {});
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(summaryIn(join(results, 'day.json'))).toEqual(wholeVerdict);
  }, 300_000);
});
