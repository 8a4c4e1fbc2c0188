/**
 * The import rules can fail: dependency-cruiser, run with `layers.mjs` on small trees that break
 * each rule once, names every broken rule at the import that breaks it, and nothing else. The
 * repository itself is held to the rules by `npm run lint:imports` (part of `npm run lint`).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const RULES = fileURLToPath(new URL('../layers.mjs', import.meta.url));
const DEPCRUISE = fileURLToPath(
  new URL('../../../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url),
);

const TSCONFIG = {
  compilerOptions: {
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    noEmit: true,
  },
};

const trees: string[] = [];
afterAll(() => {
  for (const tree of trees) rmSync(tree, { recursive: true, force: true });
});

/** A tree of the given files (path → text), with the rules for it as `../rules.mjs`. */
function treeOf(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-rules-'));
  trees.push(dir);
  const root = join(dir, 'tree');
  writeFileSync(
    join(dir, 'rules.mjs'),
    `import { importRules } from ${JSON.stringify(RULES)};\nexport default importRules(process.cwd());\n`,
  );
  const all = { 'tsconfig.json': JSON.stringify(TSCONFIG), ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Every violation dependency-cruiser finds in `root`, as `rule: from → to`, sorted. */
async function violationsIn(root: string): Promise<string[]> {
  const ran = await promisify(execFile)(
    process.execPath,
    [DEPCRUISE, '--config', '../rules.mjs', '--output-type', 'json', '.'],
    { cwd: root },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const { summary } = JSON.parse(ran.stdout) as { summary: { violations: Violation[] } };
  return summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
}

const EXPORT = 'export const x = 1;\n';
const importOf = (path: string) => `import { x } from '${path}';\nexport const y = x;\n`;

describe('the repository import rules', () => {
  it('name each broken rule at the import that breaks it, and pass what keeps them', async () => {
    const root = treeOf({
      'spec/facts.ts': EXPORT,
      'fixtures/index.ts': `export { x } from '../spec/facts.ts';\n`,
      'fixtures/walks.ts': importOf('../spec/facts.ts'),
      'reference-server/app.ts': importOf('../fixtures/index.ts'),
      'reference-server/a.ts': `import { b } from './b.ts';\nexport const a = () => b;\n`,
      'reference-server/b.ts': `import { a } from './a.ts';\nexport const b = () => a;\n`,
      'reference-server/tools-borrowed.ts': importOf('../tools/soak/soak.ts'),
      'reference-server/test/harness.ts': EXPORT,
      'reference-server/test/app.test.ts': importOf('../../tools/test-support/listen.ts'),
      'reference-server/helper.ts': importOf('../tools/test-support/listen.ts'),
      'spec/upward.ts': importOf('../reference-server/app.ts'),
      'spec/handed-on.ts': `export { x } from './facts.ts';\n`,
      'mock/beside.ts': importOf('../reference-server/app.ts'),
      'docs/test/borrowed.test.ts': importOf('../../reference-server/test/harness.ts'),
      'tools/soak/soak.ts': importOf('../../reference-server/app.ts'),
      'tools/test-support/listen.ts': importOf('../../reference-server/app.ts'),
      'tools/test-support/borrowed.ts': importOf('../../reference-server/test/harness.ts'),
      'attic/old.ts': importOf('../spec/facts.ts'),
      'conformance/core/outcome.ts': importOf('../run/runner.ts'),
      'conformance/transport/client.ts': importOf('../core/outcome.ts'),
      'conformance/rules/auth.ts': importOf('../transport/client.ts'),
      'conformance/run/runner.ts': importOf('../rules/auth.ts'),
      'conformance/reporters/console.ts': importOf('../run/runner.ts'),
      'conformance/cli/main.ts': importOf('../reporters/console.ts'),
    });
    expect(await violationsIn(root)).toEqual([
      'a-name-from-its-home: spec/handed-on.ts → spec/facts.ts',
      'code-never-imports-tests: reference-server/helper.ts → tools/test-support/listen.ts',
      'every-folder-on-a-layer: attic/old.ts → spec/facts.ts',
      'layer-reference-server-mock: mock/beside.ts → reference-server/app.ts',
      'layer-reference-server-mock: reference-server/tools-borrowed.ts → tools/soak/soak.ts',
      'layer-spec: spec/upward.ts → reference-server/app.ts',
      'no-circular: conformance/core/outcome.ts → conformance/run/runner.ts',
      'no-circular: reference-server/a.ts → reference-server/b.ts',
      'suite-core: conformance/core/outcome.ts → conformance/run/runner.ts',
      'suite-reporters: conformance/reporters/console.ts → conformance/run/runner.ts',
      'suite-rules: conformance/rules/auth.ts → conformance/transport/client.ts',
      'test-support-on-the-test-layer: tools/test-support/borrowed.ts → reference-server/test/harness.ts',
      'tests-keep-to-their-folder: docs/test/borrowed.test.ts → reference-server/test/harness.ts',
      'tests-keep-to-their-folder: tools/test-support/borrowed.ts → reference-server/test/harness.ts',
    ]);
  });

  it("hold every file of the suite in one of its layers' folders, but its entry and its tests", async () => {
    const root = treeOf({
      'conformance/core/types.ts': '',
      'conformance/stray.ts': importOf('./core/types.ts'),
      'conformance/main.ts': importOf('./core/types.ts'),
      'conformance/test/cli.suite.test.ts': importOf('../stray.ts'),
    });
    expect(await violationsIn(root)).toEqual([
      'suite-file-in-a-folder: conformance/stray.ts → conformance/core/types.ts',
    ]);
  });
});
