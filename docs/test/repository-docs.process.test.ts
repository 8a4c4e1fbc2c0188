/**
 * The repository's own pages (the root README, CONTRIBUTING, the audience pages, the folders'
 * READMEs) are read by people who copy from them. Every relative link must reach a file, every
 * `#anchor` a heading of that file, every `npm run NAME` a script of package.json, and every flag
 * written after it a flag that command's `--help` lists. The rules are proven on made-up pages
 * first, so a rule that cannot fail is seen to.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'docs/partners.md',
  'docs/qa.md',
  'docs/api-team.md',
  'docs/contract.md',
  'tools/bench/README.md',
  'conformance/README.md',
  'examples/partner-client/README.md',
];

interface Link {
  page: string;
  target: string;
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const headings = [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? ''));
  return new Set(headings);
}

/** Markdown links `[text](target)` that stay in the repository (no scheme). */
function linksOf(page: string, markdown: string): Link[] {
  const links = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
  return links.filter((target) => !/^[a-z]+:/i.test(target)).map((target) => ({ page, target }));
}

/** Why a link does not resolve, or undefined when it does. `read` gives a file's text. */
export function brokenLink(link: Link, read: (path: string) => string | undefined): string | undefined {
  const [path = '', anchor] = link.target.split('#');
  const file = path === '' ? link.page : join(dirname(link.page), path);
  const text = read(file);
  if (text === undefined) return `${link.page}: ${link.target} (no file ${file})`;
  if (anchor !== undefined && !anchorsOf(text).has(anchor))
    return `${link.page}: ${link.target} (no heading #${anchor})`;
  return undefined;
}

export interface Command {
  script: string;
  flags: string[];
}

/** The `npm run NAME -- flags…` and `npm start -- flags…` commands of a page, in code. */
export function commandsOf(markdown: string): Command[] {
  const code = [
    ...[...markdown.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) =>
      (m[1] ?? '').replace(/\\\n/g, ' '),
    ),
    ...[...markdown.matchAll(/`([^`\n]*npm (?:run|start)[^`\n]*)`/g)].map((m) => m[1] ?? ''),
  ];
  const commands: Command[] = [];
  for (const line of code.flatMap((block) => block.split('\n'))) {
    for (const m of line.matchAll(/npm (?:run (?:--silent )?([\w:-]+)|(start))((?: +[^\s#;|&>]+)*)/g)) {
      const words = (m[3] ?? '').trim().split(/ +/);
      const afterDashes = words.indexOf('--') >= 0 ? words.slice(words.indexOf('--') + 1) : [];
      const flags = afterDashes.flatMap((w) => /^--[a-z][\w-]*/.exec(w)?.[0] ?? []);
      commands.push({ script: m[1] ?? m[2] ?? '', flags });
    }
  }
  return commands;
}

const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** The entry file an npm script runs, for asking it `--help`; the server's launcher stands for its main. */
function entryOf(script: string): string | undefined {
  const words = scripts[script]?.split(' ') ?? [];
  const file = words.find((word) => word.endsWith('.ts')) ?? words.find((word) => word.endsWith('.js'));
  return file === 'reference-server/launch.js' ? 'reference-server/main.ts' : file;
}

function helpOf(entry: string): Promise<string> {
  return new Promise((resolve) => {
    const args = ['command-line/launch.js', entry, '--', '--help'];
    execFile(process.execPath, args, { cwd: ROOT, timeout: 30_000 }, (_error, stdout) => resolve(stdout));
  });
}

const read = (path: string) => {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  return path.endsWith('/') || !/\.\w+$/.test(path) ? '' : readFileSync(full, 'utf8');
};

describe('the rules, on made-up pages', () => {
  it('finds a missing file, a missing heading and accepts a good link', () => {
    const files: Record<string, string> = { 'a.md': '# A title\n## Reach your staging\n' };
    const readMadeUp = (path: string) => files[path];
    expect(brokenLink({ page: 'a.md', target: 'b.md' }, readMadeUp)).toContain('no file b.md');
    expect(brokenLink({ page: 'a.md', target: '#nowhere' }, readMadeUp)).toContain('no heading');
    expect(brokenLink({ page: 'a.md', target: 'a.md#reach-your-staging' }, readMadeUp)).toBeUndefined();
  });

  it('reads the script and the flags after -- of each command, across a continued line', () => {
    const page =
      '```sh\nnpm run --silent conformance -- --base-url X \\\n  --strict # comment --no\n```\n`npm start -- --port 8081`';
    expect(commandsOf(page)).toEqual([
      { script: 'conformance', flags: ['--base-url', '--strict'] },
      { script: 'start', flags: ['--port'] },
    ]);
  });

  it('gives GitHub anchors', () => {
    expect(anchorOf('In CI: the GitHub Action')).toBe('in-ci-the-github-action');
    expect(anchorOf('What `npm test` runs')).toBe('what-npm-test-runs');
  });
});

describe("the repository's pages", () => {
  const pages = PAGES.map((page) => ({ page, text: readFileSync(join(ROOT, page), 'utf8') }));

  it('and every file outside the tests stand alone: none names the team folder beside the clone', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
    const test = /(^|\/)test\/|\.test\.ts$|^tools\/test-support\//;
    const outside = `..${'/'}shared`;
    const naming = files
      .filter((file) => file !== '' && !test.test(file) && existsSync(join(ROOT, file)))
      .filter((file) => readFileSync(join(ROOT, file), 'utf8').includes(outside));
    expect(naming).toEqual([]);
  });

  it('start with a root README of at most 150 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(150);
  });

  it('link only to files and headings that exist', () => {
    const broken = pages.flatMap(({ page, text }) =>
      linksOf(page, text).map((link) => brokenLink(link, read)),
    );
    expect(broken.filter(Boolean)).toEqual([]);
    expect(pages.flatMap(({ page, text }) => linksOf(page, text)).length).toBeGreaterThan(10);
  });

  it('name only npm scripts that exist, with flags their --help lists', async () => {
    const commands = pages.flatMap(({ page, text }) => commandsOf(text).map((c) => ({ page, ...c })));
    const builtIn = new Set(['start', 'test', 'ci']);
    expect(commands.filter((c) => !builtIn.has(c.script) && !(c.script in scripts))).toEqual([]);
    const entries = new Map<string, Promise<string>>();
    for (const c of commands) {
      const entry = c.script === 'start' ? 'sandbox/main.ts' : entryOf(c.script);
      if (entry && c.flags.length > 0 && !entries.has(entry)) entries.set(entry, helpOf(entry));
    }
    const unknown: string[] = [];
    for (const c of commands) {
      const entry = c.script === 'start' ? 'sandbox/main.ts' : entryOf(c.script);
      if (!entry || c.flags.length === 0) continue;
      const help = await entries.get(entry);
      for (const flag of c.flags) {
        if (!new RegExp(`${flag}(?![\\w-])`).test(help ?? ''))
          unknown.push(`${c.page}: npm run ${c.script} ${flag}`);
      }
    }
    expect(unknown).toEqual([]);
    expect(commands.length).toBeGreaterThan(20);
  }, 120_000);
});
