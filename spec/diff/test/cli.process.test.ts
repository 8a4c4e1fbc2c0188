import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT } from '../../facts.ts';
import { specDiff, specDiffProcess } from './run-spec-diff.ts';
import { limitSchema, schema, SpecVariants } from './spec-variants.ts';

const variants = new SpecVariants();
afterAll(() => variants.dispose());
const lowerMaximum = variants.write('lower-maximum', (doc) => {
  limitSchema(doc).maximum = 100;
});
const reworded = variants.write('reworded', (doc) => {
  schema(doc, 'WalkName').description = 'The name a campaign gave the walk.';
});

// Most tests call the command in-process (run-spec-diff.ts); the three that say "as a process" run
// main.ts as npm does, so its exit statuses 0, 1 and 2 and both streams stay proven end to end.
describe('spec:diff command', () => {
  it('exits 0 and says so for identical specs, as a process', async () => {
    const result = await specDiffProcess([variants.basePath, variants.basePath]);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Verdict: no changes.');
  });

  it('exits 1 and lists the breaking change in plain text, as a process', async () => {
    const result = await specDiffProcess([variants.basePath, lowerMaximum]);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain('Verdict: BREAKING: the new spec breaks clients of the old spec.');
    expect(result.stdout).toContain('Gate: FAIL: 1 breaking change not accepted.');
    expect(result.stdout).toMatch(
      /Breaking, not accepted \(1\).*\n.*GET \/api\/v1\/walks · parameter limit \(query\) · maximum\n {6}A client that sends/,
    );
    expect(result.stdout).toContain(
      `A client that sends \`limit=${LIMIT.maximum}\` now gets 400 instead of 200.`,
    );
    expect(result.stdout).toContain(
      `Upper bound changed from '<= ${LIMIT.maximum}' to '<= 100'. [schema-constraint-changed]`,
    );
    expect(result.stdout).toMatch(/old spec .*base\.yaml:\d+ → new spec .*lower-maximum\.yaml:\d+/);
    expect(result.stdout).toContain(
      'id: schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum',
    );
    expect(result.stdout).not.toMatch(/\b(BASE|HEAD)\b/);
  });

  it('writes Markdown with the classification for a pull-request comment', async () => {
    const breaking = await specDiff([variants.basePath, lowerMaximum, '--format', 'markdown']);
    expect(breaking.status).toBe(1);
    expect(breaking.stdout).toMatch(/^## Spec diff: ❌ BREAKING/);
    expect(breaking.stdout).toContain('### ❌ Breaking, not accepted (1)');
    expect(breaking.stdout).toContain('| What a client sees | Where | Rule | Old spec | New spec |');
    expect(breaking.stdout).toContain(
      `| A client that sends \`limit=${LIMIT.maximum}\` now gets 400 instead of 200. |`,
    );
    expect(breaking.stdout).toContain('`schema-constraint-changed`');
    expect(breaking.stdout).toContain(
      '  - id: "schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum"',
    );

    const annotation = await specDiff([variants.basePath, reworded, '--format', 'markdown']);
    expect(annotation.status).toBe(0);
    expect(annotation.stdout).toContain('## Spec diff: ✅ not breaking (annotation-only changes)');
    expect(annotation.stdout).toContain('<details><summary>Annotation only (1)');
  });

  it('writes a JSON envelope with every classified change', async () => {
    const result = await specDiff([variants.basePath, lowerMaximum, '--format', 'json']);

    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      data: { verdict: string; changes: unknown[] };
    };
    expect(report.ok).toBe(true);
    expect(report.data.verdict).toBe('breaking');
    expect(report.data.changes).toEqual([
      expect.objectContaining({
        id: 'schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum',
        classification: 'breaking',
        impact: `A client that sends \`limit=${LIMIT.maximum}\` now gets 400 instead of 200.`,
        rule: 'schema-constraint-changed',
        property: 'maximum',
        engineImpact: 'major',
        base: expect.objectContaining({
          file: variants.basePath,
          pointer: '#/components/parameters/Limit/schema/maximum',
        }),
        head: expect.objectContaining({
          file: lowerMaximum,
          pointer: '#/components/parameters/Limit/schema/maximum',
        }),
      }),
    ]);
  });

  it.each([
    { problem: 'a missing file', content: undefined, message: 'no such file' },
    {
      problem: 'invalid YAML',
      content: 'openapi: 3.1.0\ninfo: {title: x\npaths: [\n',
      message: 'is not valid YAML',
    },
    {
      problem: 'YAML that is not OpenAPI',
      content: 'name: walks\n',
      message: 'is not an OpenAPI 3 document',
    },
    {
      problem: 'paths that are not a mapping',
      content: 'openapi: 3.1.0\ninfo: {title: x, version: "1"}\npaths: 5\n',
      message: '`paths` is not a mapping',
    },
  ])('exits 2 with a clear message on $problem', async ({ problem, content, message }) => {
    const head = join(variants.dir, `${problem.replace(/\W+/g, '-')}.yaml`);
    if (content !== undefined) writeFileSync(head, content);

    const result = await specDiff([variants.basePath, head]);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`spec:diff: ${head}`);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('exits 2 when a $ref does not resolve', async () => {
    const head = variants.write('dangling-ref', (doc) => {
      schema(doc, 'WalkSummary').properties = { name: { $ref: '#/components/schemas/Nowhere' } };
    });

    const result = await specDiff([variants.basePath, head]);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Can't resolve $ref");
  });

  it('answers unusable input with an error envelope in JSON format, as a process', async () => {
    const result = await specDiffProcess([
      variants.basePath,
      join(variants.dir, 'absent.yaml'),
      '--format',
      'json',
    ]);

    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      error: { code: 'spec_not_found', message: expect.stringContaining('absent.yaml') },
    });
    expect(result.stderr).toMatch(/^spec:diff: .*absent\.yaml: no such file\.\n$/);
  });

  it.each([
    { args: ['only-one.yaml'], message: 'expected BASE_SPEC and HEAD_SPEC' },
    {
      args: ['a.yaml', 'b.yaml', '--format', 'html'],
      message: '--format must be one of text, markdown, json',
    },
    { args: ['--base-ref', 'HEAD', 'a.yaml', 'b.yaml'], message: 'at most one spec' },
    { args: ['--bogus'], message: 'unknown flag --bogus' },
    { args: ['--acepted', 'a.yaml'], message: 'unknown flag --acepted (did you mean --accepted?)' },
  ])('exits 2 with usage on $args', async ({ args, message }) => {
    const result = await specDiff(args);

    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^spec:diff: /);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Run with --help for the options.');
  });
});

describe('spec:diff --base-ref', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'user.name=spec-diff', '-c', 'user.email=spec-diff@example.invalid', ...args],
      {
        cwd,
        stdio: 'pipe',
      },
    );
  const repo = join(variants.dir, 'repo');
  const spec = join(repo, 'spec', 'openapi.yaml');
  beforeAll(() => {
    mkdirSync(join(repo, 'spec'), { recursive: true });
    cpSync(variants.basePath, spec);
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '--no-gpg-sign', '-m', 'base');
  });

  it('exits 0 on a clean tree and names the spec at the ref', async () => {
    const result = await specDiff(['--base-ref', 'HEAD', spec]);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('spec:diff old spec HEAD:spec/openapi.yaml (1.0.0-beta) → new spec');
    expect(result.stdout).toContain('Verdict: no changes.');
  });

  it('exits 1 once the working copy breaks clients of the committed spec', async () => {
    cpSync(lowerMaximum, spec);
    try {
      const result = await specDiff(['--base-ref', 'HEAD', spec, '--format', 'markdown']);

      expect(result.status).toBe(1);
      expect(result.stdout).toContain('Old spec `HEAD:spec/openapi.yaml (1.0.0-beta)` → new spec');
      expect(result.stdout).toContain('parameter limit (query) · maximum');
    } finally {
      cpSync(variants.basePath, spec);
    }
  });

  it('exits 2 on a ref that does not exist', async () => {
    const result = await specDiff(['--base-ref', 'no-such-branch', spec]);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain('cannot read no-such-branch:spec/openapi.yaml');
  });

  it('compares spec/openapi.yaml by default', async () => {
    const result = await specDiff(['--base-ref', 'HEAD', '--format', 'json']);

    const report = JSON.parse(result.stdout) as { data: { base: string; head: string; gate: string } };
    expect(report.data.base).toBe('HEAD:spec/openapi.yaml');
    expect(report.data.head).toBe('spec/openapi.yaml');
    expect(result.status).toBe(report.data.gate === 'pass' ? 0 : 1);
  });
});
