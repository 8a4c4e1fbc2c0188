/** Reads the two specs to compare: files on disk, or one file as it was at a git revision. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isNode, LineCounter, parseDocument, YAMLParseError } from 'yaml';
import { loadSpec, type OpenApiDocument } from '../contract.ts';
import { isObject } from '../json-value.ts';
import { SpecDiffError } from './errors.ts';
import type { SourceLocation } from './types.ts';
import { pointerSegments } from './where.ts';

export interface SpecInput {
  /** The file the engine reads. */
  path: string;
  /** How reports name it. */
  label: string;
  doc: OpenApiDocument;
}

/** Loads a spec file and checks that it is an OpenAPI 3 document the engine can diff. */
export function loadSpecInput(path: string, label: string = path): SpecInput {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new SpecDiffError('spec_not_found', `${label}: no such file.`);
  }
  let doc: unknown;
  try {
    doc = loadSpec(path);
  } catch (error) {
    if (error instanceof YAMLParseError) {
      throw new SpecDiffError(
        'invalid_yaml',
        `${label} is not valid YAML: ${firstLine(error.message).replace(/:$/, '.')}`,
      );
    }
    throw new SpecDiffError('spec_not_found', `${label} cannot be read: ${(error as Error).message}`);
  }
  return { path, label, doc: checkOpenApi3(doc, label) };
}

function checkOpenApi3(doc: unknown, label: string): OpenApiDocument {
  const problem = openApi3Problem(doc);
  if (problem) throw new SpecDiffError('not_openapi', `${label} is not an OpenAPI 3 document: ${problem}.`);
  return doc as OpenApiDocument;
}

function openApi3Problem(doc: unknown): string | undefined {
  if (!isObject(doc)) return 'the file does not hold a YAML mapping';
  if (typeof doc.openapi !== 'string') return 'it has no `openapi` version field';
  if (!/^3\.\d+\.\d+/.test(doc.openapi)) return `\`openapi\` is ${JSON.stringify(doc.openapi)}, not 3.x.y`;
  if (!isObject(doc.info)) return '`info` is missing or not a mapping';
  if (doc.paths !== undefined && !isObject(doc.paths)) return '`paths` is not a mapping';
  if (doc.components !== undefined && !isObject(doc.components)) return '`components` is not a mapping';
  return undefined;
}

export interface GitSpec extends SpecInput {
  /** Removes the temporary copy. */
  dispose(): void;
}

/**
 * The spec at `specPath` as it was at `ref` (`git show REF:./file`), copied to a temporary file
 * so the engine can read it. `$ref`s to other files do not follow it there.
 */
export function loadSpecAtGitRef(ref: string, specPath: string): GitSpec {
  const dir = dirname(resolve(specPath));
  const label = `${ref}:${gitPathOf(dir, specPath)}`;
  let text: string;
  try {
    text = execFileSync('git', ['show', `${ref}:./${basename(specPath)}`], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new SpecDiffError(
      'git_ref',
      `cannot read ${label}: ${firstLine(stderr) || (error as Error).message}`,
    );
  }
  const tempDir = mkdtempSync(join(tmpdir(), 'spec-diff-'));
  const dispose = () => rmSync(tempDir, { recursive: true, force: true });
  const path = join(tempDir, basename(specPath));
  writeFileSync(path, text);
  try {
    return { ...loadSpecInput(path, label), dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** The spec's path from the repository root, for labels; the plain path outside a repository. */
function gitPathOf(dir: string, specPath: string): string {
  try {
    const root = execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return relative(root, resolve(specPath)).split('\\').join('/');
  } catch {
    return specPath;
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? '';
}

/** Where a JSON pointer's value sits in the spec file, for changes the engine does not report. */
export function locate(input: SpecInput, pointer: string): SourceLocation | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(readFileSync(input.path, 'utf8'), { lineCounter });
  const node = doc.getIn(pointerSegments(pointer), true);
  const offset = isNode(node) ? node.range?.[0] : undefined;
  if (offset === undefined) return undefined;
  return { file: input.label, pointer, line: lineCounter.linePos(offset).line };
}
