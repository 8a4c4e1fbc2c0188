/**
 * Runs a composite GitHub Action's steps from its own YAML as a runner would: `${{ inputs.* }}`
 * (with the action's defaults), `${{ steps.<id>.outputs.* }}` and `${{ github.action_path }}`
 * substituted; each `run:` with `bash --noprofile --norc -eo pipefail` and its `env:`; a fresh
 * `GITHUB_OUTPUT` file per step; one `GITHUB_STEP_SUMMARY`; `GITHUB_ACTION_PATH` the action's
 * folder; a step runs when every earlier one succeeded, or when its `if:` is `always()`. Only what
 * our action uses is supported, and anything else is refused rather than guessed. `jobEnv` is what
 * the job's environment adds (a runner's npm settings).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { outsideEnv, run, scratchDir } from '../packed.ts';

interface ActionStep {
  id?: string;
  name?: string;
  if?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

interface ActionDefinition {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

interface StepRun {
  name: string;
  ran: boolean;
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface ActionRun {
  steps: StepRun[];
  outputs: Record<string, string>;
  summary: string;
  /** The job's `RUNNER_TEMP`, to see what the steps left there. */
  runnerTemp: string;
}

export async function runAction(
  actionFile: string,
  inputs: Record<string, string>,
  workspace: string,
  jobEnv: Record<string, string> = {},
): Promise<ActionRun> {
  const action = parse(readFileSync(actionFile, 'utf8')) as ActionDefinition;
  if (action.runs.using !== 'composite') throw new Error(`${actionFile} is not a composite action`);
  const given = resolveInputs(action, inputs);
  const stepOutputs: Record<string, Record<string, string>> = {};
  const context = (expression: string) => evaluate(expression, given, stepOutputs, dirname(actionFile));
  const runnerTemp = scratchDir('runner-temp');
  const summaryFile = join(runnerTemp, 'step-summary.md');
  writeFileSync(summaryFile, '');
  const steps: StepRun[] = [];
  let failed = false;
  for (const [index, step] of action.runs.steps.entries()) {
    const name = step.name ?? step.id ?? `step ${index + 1}`;
    if (!shouldRun(step, failed)) {
      steps.push({ name, ran: false, status: null, stdout: '', stderr: '' });
      continue;
    }
    if (step.run === undefined || step.shell !== 'bash') throw new Error(`${name}: only run: steps in bash`);
    const outputFile = join(runnerTemp, `output-${index}`);
    const script = join(runnerTemp, `step-${index}.sh`);
    writeFileSync(outputFile, '');
    writeFileSync(script, substitute(step.run, context));
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([key, value]) => [key, substitute(String(value), context)]),
    );
    const ran = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: workspace,
      env: outsideEnv({
        ...jobEnv,
        ...env,
        GITHUB_ACTION_PATH: dirname(actionFile),
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_WORKSPACE: workspace,
        RUNNER_TEMP: runnerTemp,
      }),
    });
    if (step.id) stepOutputs[step.id] = readOutputs(outputFile);
    if (ran.status !== 0) failed = true;
    steps.push({ name, ran: true, ...ran });
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([key, { value }]) => [key, substitute(value, context)]),
  );
  return { steps, outputs, summary: readFileSync(summaryFile, 'utf8'), runnerTemp };
}

function resolveInputs(action: ActionDefinition, inputs: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(inputs)) {
    if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  }
  const resolved: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = inputs[name] ?? spec.default ?? '';
    // As GitHub's runner: `required` is documentation; an empty required input reaches the steps.
    resolved[name] = value;
  }
  return resolved;
}

function shouldRun(step: ActionStep, failed: boolean): boolean {
  const condition = step.if?.replace(/^\$\{\{\s*|\s*\}\}$/g, '').trim();
  if (condition === undefined || condition === 'success()') return !failed;
  if (condition === 'always()') return true;
  throw new Error(`unsupported if: ${step.if}`);
}

function substitute(text: string, context: (expression: string) => string): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => context(expression));
}

function evaluate(
  expression: string,
  inputs: Record<string, string>,
  steps: Record<string, Record<string, string>>,
  actionPath: string,
): string {
  const input = /^inputs\.([\w-]+)$/.exec(expression);
  if (input?.[1] !== undefined) return inputs[input[1]] ?? '';
  const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
  if (output?.[1] !== undefined && output[2] !== undefined) return steps[output[1]]?.[output[2]] ?? '';
  if (expression === 'github.action_path') return actionPath;
  throw new Error(`unsupported expression \${{ ${expression} }}`);
}

/** `name=value` lines, and `name<<DELIMITER` blocks, of a `GITHUB_OUTPUT` file. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const block = /^([\w-]+)<<(.+)$/.exec(line);
    if (block?.[1] !== undefined) {
      const end = lines.indexOf(block[2] ?? '', i + 1);
      outputs[block[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return outputs;
}
