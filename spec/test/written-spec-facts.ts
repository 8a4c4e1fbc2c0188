/**
 * The facts of the written specification that the spec tests hold `spec/openapi.yaml` to, taken
 * from its tables and committed as `spec/written-spec-facts.json`, so the tests run on a clone with
 * no `../shared` beside it. Where `../shared` is present, `written-spec.test.ts` extracts them again
 * and compares. After the written spec changes: `npm run spec:written-facts` rewrites the file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CommandSpec, optionsOrExit, readFlags } from '../../command-line/flags.ts';

/** The team's folder beside this clone, where the written spec and the command-line contract live. */
const SHARED_DIR = fileURLToPath(new URL('../../../shared/', import.meta.url));
const writtenSpecIn = (dir: string) => join(dir, 'spec-source', 'canvassing-read-api.md');
const contractIn = (dir: string) => join(dir, 'CONTRACT.md');
export const WRITTEN_FACTS_PATH = fileURLToPath(new URL('../written-spec-facts.json', import.meta.url));

export interface WrittenFacts {
  /** `METHOD path` of each live endpoint (§4.2, §4.3). */
  liveEndpoints: string[];
  /** Path of each planned endpoint (§4.4). */
  plannedEndpoints: string[];
  /** Stop status value → meaning, in the written order (§2.4). */
  stopStatuses: [string, string][];
  /** Field names in the written order (§2.1, §2.2, §2.3). */
  fields: { WalkSummary: string[]; WalkDetail: string[]; Stop: string[] };
  /** The `Shape:` of web_url and app_link (§2.1). */
  linkShapes: { web_url: string; app_link: string };
  /** §8: the limit query parameter. */
  limit: { default: number; minimum: number; maximum: number };
  /** §5.2: the two headers that may carry the key, as the written spec phrases them. */
  keyHeaders: string[];
  /** §5.3: the key prefix. */
  keyPrefix: string;
  /** §5.6: scope → what it grants. */
  scopes: [string, string][];
  /** §7: HTTP status and `error.code`. */
  errors: { status: number; code: string }[];
  /** `../shared/CONTRACT.md`: the variables of `--print-credentials`, in its order. */
  credentialNames: string[];
}

/** Every row but the header of the first markdown table after `heading`, back-quotes removed. */
export function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  if (start < 0) throw new Error(`the written spec has no "${heading}"`);
  const rows: string[][] = [];
  for (const line of markdown.slice(start).split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replaceAll('`', '')),
    );
  }
  return rows.slice(1);
}

function firstMatch(text: string, pattern: RegExp, what: string): RegExpExecArray {
  const match = pattern.exec(text);
  if (!match) throw new Error(`the written spec does not state ${what}`);
  return match;
}

function limitOf(markdown: string): WrittenFacts['limit'] {
  const row = tableAfter(markdown, '## 8. Limits').find(([name]) => name === 'limit query parameter');
  const [, value = '', minimum = '', maximum = ''] = firstMatch(
    row?.[2] ?? '',
    /^Default (\d+), minimum (\d+), maximum (\d+)$/,
    'the limit row of §8',
  );
  return { default: Number(value), minimum: Number(minimum), maximum: Number(maximum) };
}

function linkShape(markdown: string, field: string): string {
  const row = tableAfter(markdown, '### 2.1 Walk (summary').find(([name]) => name === field);
  return firstMatch(row?.[2] ?? '', /Shape: (\S+?)\.?$/, `the shape of ${field}`)[1] ?? '';
}

export function extractWrittenFacts(markdown: string, contract: string): WrittenFacts {
  const fieldsAfter = (heading: string) => tableAfter(markdown, heading).map(([field = '']) => field);
  const pairs = (heading: string) =>
    tableAfter(markdown, heading).map(([a = '', b = '']): [string, string] => [a, b]);
  return {
    liveEndpoints: [...markdown.matchAll(/^### 4\.\d (GET \S+) \(live/gm)].map((m) => m[1] ?? ''),
    plannedEndpoints: tableAfter(markdown, '### 4.4 Planned endpoints').map(([route = '']) =>
      route.replace(/^GET /, ''),
    ),
    stopStatuses: pairs('### 2.4 Stop statuses'),
    fields: {
      WalkSummary: fieldsAfter('### 2.1 Walk (summary'),
      WalkDetail: fieldsAfter('### 2.2 Walk (detail'),
      Stop: fieldsAfter('### 2.3 Stop'),
    },
    linkShapes: { web_url: linkShape(markdown, 'web_url'), app_link: linkShape(markdown, 'app_link') },
    limit: limitOf(markdown),
    keyHeaders: [...markdown.matchAll(/^ {3}- (`[^`]+` with the value `[^`]+`)$/gm)].map((m) => m[1] ?? ''),
    keyPrefix: firstMatch(markdown, /Key shape: the prefix `([^`]+)`/, 'the key prefix')[1] ?? '',
    scopes: pairs('6. Each key carries'),
    errors: tableAfter(markdown, 'Error envelope:').map(([status = '', code = '']) => ({
      status: Number(status),
      code,
    })),
    credentialNames: [...contract.matchAll(/^\s*(CONFORMANCE_[A-Z_]+)=/gm)].map((m) => m[1] ?? ''),
  };
}

/** The committed facts. */
export function committedWrittenFacts(): WrittenFacts {
  return JSON.parse(readFileSync(WRITTEN_FACTS_PATH, 'utf8')) as WrittenFacts;
}

/** The facts as `../shared` (or `dir`) states them today, or undefined when it is not there. */
export function sharedWrittenFacts(dir = SHARED_DIR): WrittenFacts | undefined {
  const [spec, contract] = [writtenSpecIn(dir), contractIn(dir)];
  if (!existsSync(spec) || !existsSync(contract)) return undefined;
  return extractWrittenFacts(readFileSync(spec, 'utf8'), readFileSync(contract, 'utf8'));
}

const COMMAND = {
  name: 'spec:written-facts',
  usage: `npm run spec:written-facts (rewrites the file)
       tsx spec/test/written-spec-facts.ts [--write]`,
  summary:
    'Extracts the facts the spec tests need from the written spec and the command-line contract in\n../shared (spec-source/canvassing-read-api.md, CONTRACT.md) beside this clone.',
  flags: {
    write: { type: 'boolean', help: 'Rewrite spec/written-spec-facts.json (without it, print the facts)' },
    from: {
      type: 'string',
      value: 'DIR',
      help: 'The folder holding them (default ../shared beside this clone)',
    },
  },
  sections: [
    {
      title: 'Exit status',
      text: '  0 done, or skipped in one line when the written spec is not there (the committed file stays); 2 usage.',
    },
  ],
} as const satisfies CommandSpec;

async function main(argv: string[]): Promise<number> {
  const options = optionsOrExit(COMMAND, argv, (args) => {
    const { values } = readFlags(COMMAND, args);
    return values.help ? 'help' : { write: values.write ?? false, from: values.from ?? SHARED_DIR };
  });
  if (typeof options === 'number') return options;
  const facts = sharedWrittenFacts(options.from);
  if (!facts) {
    process.stdout.write(
      `spec:written-facts: skipped, no written spec in ${options.from}; spec/written-spec-facts.json stays as committed.\n`,
    );
    return 0;
  }
  const prettier = await import('prettier');
  const config = { ...(await prettier.resolveConfig(WRITTEN_FACTS_PATH)), filepath: WRITTEN_FACTS_PATH };
  const text = await prettier.format(JSON.stringify(facts), config);
  if (!options.write) process.stdout.write(text);
  else {
    writeFileSync(WRITTEN_FACTS_PATH, text);
    process.stdout.write(`wrote ${WRITTEN_FACTS_PATH}\n`);
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
