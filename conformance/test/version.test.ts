/**
 * One version everywhere: the repository's package.json, both workspaces, the tool's name in
 * reports and User-Agent, and `--version` of `npm run conformance` are the API version the suite
 * checks (`info.version` of spec/openapi.yaml). The packed bin's answer is held to the same line by
 * packaging/test/conformance-package.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../spec/contract.ts';
import { USER_AGENT, VERSION } from '../core/tool.ts';
import { runCli } from './harness.ts';

const manifestVersion = (path: string) =>
  (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;

describe('the version', () => {
  const { info } = loadSpec();

  it('is the API version in every package.json, the tool and its User-Agent', () => {
    const versions = ['../../package.json', '../package.json', '../../sandbox/package.json'].map(
      manifestVersion,
    );
    expect(versions).toEqual([info.version, info.version, info.version]);
    expect(VERSION).toBe(info.version);
    expect(USER_AGENT).toBe(`canvassing-conformance/${info.version}`);
  });

  it('npm run conformance -- --version prints it and runs nothing', async () => {
    const run = await runCli(['--version'], { CONFORMANCE_API_KEY: 'set-but-unused' });
    expect(run).toEqual({
      status: 0,
      stdout: `canvassing-conformance ${info.version} (${info.title} ${info.version})\n`,
      stderr: '',
    });
  });

  it('--help wins over --version', async () => {
    const run = await runCli(['--version', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: /);
    expect(run.stdout).toContain('--version');
  });
});
