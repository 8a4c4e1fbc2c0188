/**
 * The import graph of a folder's source files, read by the TypeScript compiler's own parser rather
 * than a pattern, so every form counts: `import … from`, a bare `import './x.ts'`, `export … from`,
 * type-only imports (a circle of types is still a circle a reader must untangle), `import()` with a
 * string or a template without substitutions, `require()`, `import x = require()` and
 * `typeof import()`. Each relative specifier is resolved to the file it loads (`.js` written for a
 * `.ts` file, an extensionless path, a folder's index); one that names no file, or an `import()`
 * whose specifier is computed, is reported rather than silently left out of the graph.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** File → the files it imports, both relative to the base folder, `/`-separated. */
export type ImportGraph = Map<string, string[]>;

export interface ImportScan {
  graph: ImportGraph;
  /** `file:line specifier` of each relative import that names no file, or is computed. */
  unresolved: string[];
}

const SOURCE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A module specifier as written, or undefined when the code computes it. */
export interface Specifier {
  text: string | undefined;
  line: number;
}

/** Every module a source file loads, statically or at run time, in the order written. */
export function specifiersOf(fileName: string, text: string): Specifier[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Specifier[] = [];
  const add = (node: ts.Node, expression: ts.Node | undefined) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({
      text: expression && ts.isStringLiteralLike(expression) ? expression.text : undefined,
      line,
    });
  };
  const visit = (node: ts.Node): void => {
    const loaded = loadedBy(node);
    if (loaded !== null) add(node, loaded);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The specifier expression a node loads a module by; null when the node loads none. */
function loadedBy(node: ts.Node): ts.Node | undefined | null {
  if (ts.isImportDeclaration(node)) return node.moduleSpecifier;
  if (ts.isExportDeclaration(node)) return node.moduleSpecifier ?? null;
  if (ts.isImportEqualsDeclaration(node)) {
    const reference = node.moduleReference;
    return ts.isExternalModuleReference(reference) ? reference.expression : null;
  }
  if (ts.isImportTypeNode(node)) {
    const argument = node.argument;
    return ts.isLiteralTypeNode(argument) ? argument.literal : undefined;
  }
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
    const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
    if (isImport || isRequire) return node.arguments[0];
  }
  return null;
}

/** The TypeScript source a `.js`-style specifier stands for (NodeNext lets code write either). */
const TS_FOR_JS: Readonly<Record<string, string>> = {
  '.js': '.ts',
  '.mjs': '.mts',
  '.cjs': '.cts',
  '.jsx': '.tsx',
};
const TS_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx'];

/** The files a relative specifier may name, in the order Node and TypeScript try them. */
function candidatesOf(path: string): string[] {
  const ext = extname(path);
  const swapped = TS_FOR_JS[ext];
  const asTs = swapped ? [path.slice(0, -ext.length) + swapped] : [];
  const written = swapped !== undefined || TS_EXTENSIONS.includes(ext);
  const bare = written ? [] : ['.ts', '.tsx', '.mts', '.js', '.mjs'].map((extension) => path + extension);
  return [path, ...asTs, ...bare, join(path, 'index.ts'), join(path, 'index.js')];
}

/** The file a relative specifier loads from `fromFile`, or undefined when it names none. */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const path = resolve(dirname(fromFile), specifier);
  return candidatesOf(path).find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

const posix = (path: string) => path.split(sep).join('/');
const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../');

/** Every file under `root` with the repository files it loads (packages are left out). */
export function scanImports(root: string, base: string = process.cwd()): ImportScan {
  const graph: ImportGraph = new Map();
  const unresolved: string[] = [];
  for (const file of sourceFiles(resolve(base, root))) {
    const name = posix(relative(base, file));
    const imports: string[] = [];
    for (const { text, line } of specifiersOf(file, readFileSync(file, 'utf8'))) {
      if (text !== undefined && !isRelative(text)) continue;
      const target = text === undefined ? undefined : resolveSpecifier(file, text);
      if (target) imports.push(posix(relative(base, target)));
      else unresolved.push(`${name}:${line} ${text ?? '(a computed specifier)'}`);
    }
    graph.set(name, [...new Set(imports)]);
  }
  return { graph, unresolved };
}

/** The graph of `scanImports`. */
export function importGraph(root: string, base: string = process.cwd()): ImportGraph {
  return scanImports(root, base).graph;
}

/**
 * Imports that point up a floor: `file (floor) → imported (floor)` for each import of a file placed
 * in `floors` of a file placed higher. Files outside the table are not judged here (`unplaced`).
 */
export function upwardImports(graph: ImportGraph, floors: ReadonlyMap<string, number>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const floor = floors.get(file);
    if (floor === undefined) continue;
    for (const imported of imports) {
      const above = floors.get(imported);
      if (above !== undefined && above > floor) found.push(`${file} (${floor}) → ${imported} (${above})`);
    }
  }
  return found.sort();
}

/** Files of the graph no floor holds, and floors' files the graph does not have (a stale table). */
export function unplaced(
  graph: ImportGraph,
  floors: ReadonlyMap<string, number>,
  judged: (file: string) => boolean,
) {
  return {
    missing: [...graph.keys()].filter((file) => judged(file) && !floors.has(file)).sort(),
    stale: [...floors.keys()].filter((file) => !graph.has(file)).sort(),
  };
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function circlesOf(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** The table entry a path stands under: the longest entry that is the path or a folder holding it. */
export function entryOf(path: string, entries: Iterable<string>): string | undefined {
  let found: string | undefined;
  for (const entry of entries) {
    const holds = path === entry || (entry.endsWith('/') && path.startsWith(entry));
    if (holds && (found === undefined || entry.length > found.length)) found = entry;
  }
  return found;
}

/**
 * The graph as the files' owners see it: an import of a support file (shared test support, which
 * stands on no floor of its own) counts as the imports that file makes, followed through other
 * support files, so whatever a test reaches through support is the test's own reach.
 */
export function reachThroughSupport(graph: ImportGraph, isSupport: (file: string) => boolean): ImportGraph {
  const through = new Map<string, Set<string>>();
  const reachOf = (file: string, seen: Set<string>): Set<string> => {
    const known = through.get(file);
    if (known) return known;
    const reach = new Set<string>();
    for (const imported of graph.get(file) ?? []) {
      if (!isSupport(imported)) reach.add(imported);
      else if (!seen.has(imported))
        for (const next of reachOf(imported, new Set([...seen, imported]))) reach.add(next);
    }
    through.set(file, reach);
    return reach;
  };
  return new Map([...graph].map(([file]) => [file, [...reachOf(file, new Set([file]))]]));
}

/** One node per owner (`ownerOf`: a folder, say), an arrow where a file of one imports a file of another. */
export function ownerGraph(graph: ImportGraph, ownerOf: (file: string) => string | undefined): ImportGraph {
  const arrows = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const owner = ownerOf(file);
    if (owner === undefined) continue;
    const to = arrows.get(owner) ?? new Set<string>();
    arrows.set(owner, to);
    for (const imported of imports) {
      const other = ownerOf(imported);
      if (other !== undefined && other !== owner) to.add(other);
    }
  }
  return new Map([...arrows].map(([owner, to]) => [owner, [...to].sort()]));
}

/**
 * Names a module hands on from another (`export … from`, or `export { x }` of an imported `x`), as
 * `file:line`: each such name has two import paths.
 */
export function reExportsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const imported = new Set<string>();
  for (const statement of source.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (bindings?.name) imported.add(bindings.name.text);
    const named = bindings?.namedBindings;
    if (named && ts.isNamespaceImport(named)) imported.add(named.name.text);
    if (named && ts.isNamedImports(named))
      for (const element of named.elements) imported.add(element.name.text);
  }
  const handedOn = (statement: ts.ExportDeclaration) =>
    statement.moduleSpecifier !== undefined ||
    (statement.exportClause !== undefined &&
      ts.isNamedExports(statement.exportClause) &&
      statement.exportClause.elements.some((e) => imported.has((e.propertyName ?? e.name).text)));
  return source.statements
    .filter((statement) => ts.isExportDeclaration(statement) && handedOn(statement))
    .map(
      (statement) =>
        `${fileName}:${source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1}`,
    );
}
