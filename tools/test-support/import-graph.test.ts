/** The import graph reads every form a file can load another by, with the compiler's own parser. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanImports } from './import-graph.ts';

describe('reading imports with the compiler', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sees every form a file can load another by, and resolves each to its file', () => {
    mkdirSync(join(dir, 'pkg'));
    for (const name of [
      'plain',
      'bare',
      'side',
      'js',
      'tmpl',
      'req',
      'eq',
      'typeof',
      'reexport',
      'pkg/index',
    ]) {
      writeFileSync(join(dir, `${name}.ts`), 'export const x = 1;\n');
    }
    writeFileSync(
      join(dir, 'main.ts'),
      [
        "import { x } from './plain.ts';",
        "import type { x as y } from './bare';",
        "import './side.ts';",
        "import { x as z } from './js.js';",
        'const later = await import(`./tmpl.ts`);',
        "const required = require('./req.ts');",
        "import eq = require('./eq.ts');",
        "type T = typeof import('./typeof.ts');",
        "export * from './reexport.ts';",
        "import { x as w } from './pkg';",
        "import { parse } from 'yaml';",
        "import('./missing.ts');",
        'import(`./${later}.ts`);',
      ].join('\n'),
    );
    const scan = scanImports('.', dir);
    expect(scan.graph.get('main.ts')).toEqual(
      ['plain', 'bare', 'side', 'js', 'tmpl', 'req', 'eq', 'typeof', 'reexport', 'pkg/index'].map(
        (name) => `${name}.ts`,
      ),
    );
    expect(scan.unresolved).toEqual(['main.ts:12 ./missing.ts', 'main.ts:13 (a computed specifier)']);
  });
});
