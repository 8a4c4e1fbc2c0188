/**
 * The spec under test is configuration: one that is not OpenAPI 3.1, has no live operation, or has
 * a live operation without its scope cannot be judged by, and the command says so in one line
 * (exit 2) before it sends anything.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { runCli } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'spec-input-'));
const KEY = { CONFORMANCE_API_KEY: 'svc_sk_live_specinputtest00000000000000000001' };

/** The parts of the spec the cases change. */
interface Doc {
  openapi: string;
  paths: Record<string, { get: Record<string, unknown> }>;
}

/** The project's spec changed by `edit`, written to a file of its own. */
function specWith(name: string, edit: (doc: Doc) => void): string {
  const doc = parse(readFileSync(LIVE_SPEC_PATH, 'utf8')) as Doc;
  edit(doc);
  const file = join(dir, name);
  writeFileSync(file, stringify(doc));
  return file;
}

/** Nothing listens here: a spec refused before any request never finds that out. */
const NOWHERE = 'http://127.0.0.1:9';

async function refused(spec: string): Promise<string> {
  const run = await runCli(['--base-url', NOWHERE, '--spec', spec], KEY);
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  // The reason, and the pointer to --help every configuration error ends with.
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('Run with --help for the options.');
  expect(run.stderr).not.toMatch(/cannot be reached/);
  return run.stderr;
}

describe('--spec FILE that cannot be judged by', () => {
  it('is not OpenAPI 3.1', async () => {
    const file = specWith('v30.yaml', (doc) => (doc.openapi = '3.0.3'));
    expect(await refused(file)).toMatch(/is not an OpenAPI 3\.1 document/);
  });

  it('has no live operation', async () => {
    const file = specWith('planned-only.yaml', (doc) => {
      for (const item of Object.values(doc.paths)) item.get['x-status'] = 'planned';
    });
    expect(await refused(file)).toMatch(/has no live GET operation to check/);
  });

  it('has a live operation without its scope, named', async () => {
    const file = specWith('no-scope.yaml', (doc) => {
      const walks = doc.paths['/api/v1/walks'];
      if (walks) delete walks.get['x-required-scopes'];
    });
    expect(await refused(file)).toMatch(
      /listWalks \(GET \/api\/v1\/walks\) names no scope in x-required-scopes/,
    );
  });

  it('is not YAML or JSON at all, or not there', async () => {
    const file = join(dir, 'garbage.yaml');
    writeFileSync(file, '{ this: is: not yaml');
    expect(await refused(file)).toMatch(/garbage\.yaml/);
    expect(await refused(join(dir, 'missing.yaml'))).toMatch(/missing\.yaml/);
  });
});
