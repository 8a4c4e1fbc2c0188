/**
 * The gate as the API team meets it, through the command: an accepted break
 * passes, the same break unacknowledged fails, an expired or stale entry fails, a non-breaking
 * change passes with its impact line, and unusable input exits 2 with one line. The command runs
 * in-process (its entry is run as a process in cli.process.test.ts), with Redocly run once per pair of specs.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { specDiff } from './run-spec-diff.ts';
import { limitSchema, SpecVariants } from './spec-variants.ts';

const variants = new SpecVariants();
afterAll(() => variants.dispose());
const lowered = variants.write('lowered', (doc) => {
  limitSchema(doc).maximum = 100;
});
const raised = variants.write('raised', (doc) => {
  limitSchema(doc).maximum = 300;
});
const LOWERED_ID = 'schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum';

/** Writes an acknowledgement file and returns the `--accepted` arguments naming it. */
function accepted(name: string, text: string): string[] {
  const path = join(variants.dir, `${name}.accepted.yaml`);
  writeFileSync(path, text);
  return ['--accepted', path];
}

const entry = (end: string, id = LOWERED_ID) =>
  `accepted:\n  - id: "${id}"\n    reason: Partners were told in the 2026-11 changelog.\n    ${end}\n`;

describe('spec:diff with acknowledged breaks', () => {
  it('passes a break listed in the acknowledgement file, and says why it is accepted', async () => {
    const result = await specDiff([
      variants.basePath,
      lowered,
      ...accepted('live', entry('expires: "2999-12-31"')),
    ]);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Gate: PASS: every breaking change is accepted (1).');
    expect(result.stdout).toContain('Breaking, accepted (1)');
    expect(result.stdout).toContain(
      'accepted: Partners were told in the 2026-11 changelog. (expires 2999-12-31)',
    );
  });

  it('fails the same break when no entry names it', async () => {
    const result = await specDiff([variants.basePath, lowered, ...accepted('empty', 'accepted: []\n')]);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain('Gate: FAIL: 1 breaking change not accepted.');
    expect(result.stdout).toContain(`id: ${LOWERED_ID}`);
  });

  it('reads accepted-changes.yaml beside the new spec when no --accepted is given', async () => {
    const dir = join(variants.dir, 'beside');
    mkdirSync(dir, { recursive: true });
    cpSync(lowered, join(dir, 'openapi.yaml'));
    writeFileSync(join(dir, 'accepted-changes.yaml'), entry('spec-version: "1.0.0-beta"'));

    const result = await specDiff([variants.basePath, join(dir, 'openapi.yaml')]);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Breaking, accepted (1)');
  });

  it('fails an entry that has expired, and the break it no longer covers', async () => {
    const result = await specDiff([
      variants.basePath,
      lowered,
      ...accepted('expired', entry('expires: "2020-01-31"')),
    ]);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      'Gate: FAIL: 1 breaking change not accepted, 1 acknowledgement stale or expired.',
    );
    expect(result.stdout).toContain('expired: expired on 2020-01-31');
  });

  it('fails an entry made for another spec version', async () => {
    const result = await specDiff([
      variants.basePath,
      lowered,
      ...accepted('version', entry('spec-version: "2.0.0"')),
    ]);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain('holds for spec version 2.0.0, and the new spec is 1.0.0-beta');
  });

  it('fails a stale entry that matches no change, even when nothing breaks', async () => {
    const stale = entry(
      'expires: "2999-12-31"',
      'property-removed@GET /api/v1/walks > response 200 > body data[].gone',
    );
    const result = await specDiff([
      variants.basePath,
      raised,
      '--format',
      'markdown',
      ...accepted('stale', stale),
    ]);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain('### ❌ Acknowledgements that fail the gate (1)');
    expect(result.stdout).toContain('stale: matches no change between the old and the new spec');
  });

  it('fails an entry that names a change which is not breaking', async () => {
    const notBreaking = entry(
      'expires: "2999-12-31"',
      'non-breaking/modified@GET /api/v1/walks > parameter limit (query) > maximum',
    );
    const result = await specDiff([variants.basePath, raised, ...accepted('not-breaking', notBreaking)]);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain('matches a change that is not breaking');
  });

  it('passes a non-breaking change with its impact line', async () => {
    const result = await specDiff([variants.basePath, raised, ...accepted('none', 'accepted: []\n')]);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Gate: PASS.');
    expect(result.stdout).toContain('A client that sends `limit=300` now gets 200 instead of 400.');
  });
});

describe('spec:diff on unusable input: exit 2 and one line', () => {
  const broken = (name: string, content: string) => {
    const path = join(variants.dir, `${name}.yaml`);
    writeFileSync(path, content);
    return path;
  };
  const noReason = `accepted:\n  - id: "${LOWERED_ID}"\n    expires: "2999-12-31"\n`;

  // Every defect of the acknowledgement file is held to its message in acknowledgements.test.ts.
  it.each([
    [
      'a missing spec file',
      () => [variants.basePath, join(variants.dir, 'absent.yaml')],
      'absent.yaml: no such file.',
    ],
    [
      'a spec that is not YAML',
      () => [variants.basePath, broken('not-yaml', 'paths: [\n')],
      'is not valid YAML',
    ],
    [
      'a spec that is not OpenAPI',
      () => [variants.basePath, broken('not-openapi', 'name: walks\n')],
      'is not an OpenAPI 3 document',
    ],
    [
      'a malformed acknowledgement file',
      () => [variants.basePath, lowered, ...accepted('no-reason', noReason)],
      'needs a `reason`',
    ],
  ])('%s', async (_name, args, message) => {
    const result = await specDiff(args());

    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(message)]);
    expect(result.stderr).toMatch(/^spec:diff: /);
  });
});
