/**
 * A day's recording in shards: `--shard i/n` judges the entries that belong to shard i of n and
 * writes its part of the verdict (counts, findings and the cross-exchange rules' state, as digests
 * and small facts, never bodies) in a JSON file of its own; `--merge` joins the shards' files and
 * gives the verdict judging the whole recording gives. Any batch engine can run the shards, on as
 * many machines as it has; the files only need to meet again.
 *
 * Which shard an entry belongs to is a stable hash of the item it asks for (its path: every read
 * of one item, with any key, in either header, at any time, lands in one shard, and so does its
 * state), or, for an entry that names no item (a collection's page, an unknown path, an entry that
 * cannot be read), of its place in the file, so the pages spread evenly. Correctness does not rest
 * on it: every table of the state says how two shards' records of one key are joined
 * (`core/state.ts`).
 *
 * A shard's file is JSON laid out one record per line, so that `--merge` reads it as a stream:
 *
 *   {"format":"canvassing-conformance shard","version":1,
 *   "head":{"suite":{...the version whose rules judged it...},...what the shard read, and its judge's counts...},
 *   "state":[
 *   [0,"table","key",<the record: JSON, Maps and Sets tagged (`core/state.ts`)>],
 *   ...
 *   ]}
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { ConfigError } from '../core/config-error.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import { decodeRecord, encodeRecord, type StateRecord } from '../core/state.ts';
import type { KeyName } from '../core/roles.ts';
import { TOOL_NAME, VERSION } from '../core/tool.ts';
import type { SpecIdentity } from '../core/report-model.ts';
import type { RecordedRequest } from '../transport/recordings/entry.ts';
import type { JudgeDump } from './judge.ts';

/** Shard `index` (1-based) of `of`. */
export interface Shard {
  index: number;
  of: number;
}

/** Unreadable entries named one by one in a report; beyond them, counted. */
export const MAX_NAMED = 50;

/** An entry that could not be read or judged, by its place in the file. */
export interface EntryIssue {
  index: number;
  reason: string;
}

/** What a base's entries were, as a shard counts them. */
export interface BaseCounts {
  url: string;
  entries: number;
  readable: number;
  bodyless: number;
  issues: { count: number; named: EntryIssue[]; reasons: [string, number][] };
}

/** The settings that decide how a shard judges: shards merged must agree on them. */
export interface ShardSettings {
  /** Each configured key by its hashed id (`key#3f9a1c0e`): the same keys tell the same roles. */
  keys: Partial<Record<KeyName, string>>;
  baseUrl?: string;
  webBaseUrl?: string;
}

/** What a shard read and found, beside its state. */
export interface ShardHead {
  /** The suite that judged it (`canvassing-conformance 1.0.0`): its rules are that version's. */
  suite: { name: string; version: string };
  spec: SpecIdentity;
  shard: Shard;
  /** The ids of the rules it judged by, in report order. */
  rules: string[];
  settings: ShardSettings;
  /** The recording as named, and how many entries it holds (every shard reads every entry). */
  recording: { file: string; entries: number };
  /** Entries of this shard under each API base URL found. */
  seen: [string, number][];
  unreadable: BaseCounts['issues'];
  bases: (BaseCounts & { judge: JudgeDump })[];
}

/** A shard's file as read back: its head, and its state records by the index of their base. */
export interface ShardFile {
  path: string;
  head: ShardHead;
  records(): AsyncGenerator<{ base: number; record: StateRecord }>;
}

const FORMAT = 'canvassing-conformance shard';
const FORMAT_VERSION = 1;
const FIRST_LINE = `{"format":${JSON.stringify(FORMAT)},"version":${FORMAT_VERSION},`;

/** `3/8`: shard 3 of 8; anything else, or `9/8`, is a configuration error naming what is wrong. */
export function parseShard(value: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  if (!match)
    throw new ConfigError(`--shard must be I/N, shard I of N (e.g. 1/4), not ${JSON.stringify(value)}`);
  const index = Number(match[1]);
  const of = Number(match[2]);
  if (of < 1 || of > 10_000) throw new ConfigError(`--shard ${value}: N must be 1 to 10000`);
  if (index < 1 || index > of)
    throw new ConfigError(`--shard ${value}: there is no shard ${index} of ${of} (I runs from 1 to ${of})`);
  return { index, of };
}

/** FNV-1a, 32 bits: a stable hash of a text, the same on every machine and Node version. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Whether an entry belongs to a shard: an item's read by the hash of its path below the API's base
 * (`/api/v1/walks/<id>`), anything else by its place in the file.
 */
export function shardOwns(
  shard: Shard,
  index: number,
  spec?: SpecModel,
  request?: RecordedRequest,
  base?: string,
): boolean {
  if (shard.of === 1) return true;
  const path = spec && request && base ? itemPath(spec, request, base) : undefined;
  const slot = path === undefined ? index % shard.of : fnv1a(path) % shard.of;
  return slot === shard.index - 1;
}

/** The path below the base of a request for one item, or undefined when it asks for no item. */
function itemPath(spec: SpecModel, request: RecordedRequest, base: string): string | undefined {
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const path = request.url.pathname.slice(basePath.length) || '/';
  const op: OperationModel | undefined = spec.match(
    request.method === 'HEAD' ? 'GET' : request.method,
    path,
  )?.op;
  return op?.kind === 'item' ? path : undefined;
}

/** Writes a shard's file: its head, then every record of each base's state, one per line. */
export async function writeShardFile(
  path: string,
  head: ShardHead,
  states: readonly { records(): Iterable<StateRecord> }[],
  redact: (value: unknown) => unknown,
): Promise<void> {
  const file = await open(path, 'w');
  try {
    let buffered: string[] = [];
    let size = 0;
    const write = async (text: string) => {
      buffered.push(text);
      size += text.length;
      if (size < 1 << 20) return;
      await file.write(buffered.join(''));
      buffered = [];
      size = 0;
    };
    await write(`${FIRST_LINE}\n"head":${JSON.stringify(redact(head))},\n"state":[`);
    let first = true;
    for (const [base, state] of states.entries()) {
      for (const { table, key, record } of state.records()) {
        const text = encodeRecord(redact(record));
        await write(
          `${first ? '' : ','}\n[${base},${JSON.stringify(redact(table))},${JSON.stringify(redact(key))},${text}]`,
        );
        first = false;
      }
    }
    await write('\n]}\n');
    await file.write(buffered.join(''));
  } finally {
    await file.close();
  }
}

/** A shard's file that cannot be merged: exit status 2, naming the file and why. */
export class ShardError extends ConfigError {}

/** Reads the head of a shard's file; its records are read later, as a stream (`records`). */
export async function readShardFile(path: string): Promise<ShardFile> {
  const { lines, close } = linesOf(path);
  try {
    const head = await headOf(path, lines).catch((error: NodeJS.ErrnoException) => {
      if (error instanceof ShardError) throw error;
      throw new ShardError(`--merge ${path}: cannot read it (${error.code ?? error.message})`);
    });
    return {
      path,
      head,
      async *records() {
        const again = linesOf(path);
        try {
          for (let n = 0; n < 3; n++) await again.lines.next();
          yield* recordsOf(path, again.lines);
        } finally {
          again.close();
        }
      },
    };
  } finally {
    close();
  }
}

/** The first three lines of a shard's file: its format, its head, and the start of its state. */
async function headOf(path: string, lines: AsyncIterator<string>): Promise<ShardHead> {
  const first = await lines.next();
  if (first.done || !first.value.startsWith('{"format":'))
    throw malformed(path, 1, 'not a shard result of --shard');
  let version: unknown;
  try {
    ({ version } = JSON.parse(`${first.value.replace(/,$/, '')}}`) as { version?: unknown });
  } catch {
    throw malformed(path, 1, 'not a shard result of --shard');
  }
  if (first.value !== FIRST_LINE)
    throw malformed(
      path,
      1,
      `a shard result of format version ${String(version)}; this suite reads version ${FORMAT_VERSION}`,
    );
  const second = await lines.next();
  const head = second.done ? undefined : parseLine<ShardHead>(second.value, /^"head":(.*),$/);
  if (!head || !isHead(head)) throw malformed(path, 2, 'no head of a shard result');
  const third = await lines.next();
  if (third.done || third.value !== '"state":[') throw malformed(path, 3, 'no state of a shard result');
  return head;
}

async function* recordsOf(
  path: string,
  lines: AsyncIterator<string>,
): AsyncGenerator<{ base: number; record: StateRecord }> {
  for (let n = 4; ; n++) {
    const line = await lines.next();
    if (line.done) throw malformed(path, n, 'the file ends before its state does (a file cut short?)');
    if (line.value === ']}') return;
    const text = /^(.*?),?$/.exec(line.value)?.[1] ?? '';
    let row: unknown;
    try {
      row = decodeRecord(text);
    } catch {
      throw malformed(path, n, 'a state record is not JSON');
    }
    if (
      !Array.isArray(row) ||
      row.length !== 4 ||
      typeof row[0] !== 'number' ||
      typeof row[1] !== 'string' ||
      typeof row[2] !== 'string'
    )
      throw malformed(path, n, 'a state record is not [base, table, key, record]');
    yield { base: row[0], record: { table: row[1], key: row[2], record: row[3] } };
  }
}

function linesOf(path: string): { lines: AsyncIterator<string>; close(): void } {
  const input = createReadStream(path);
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  return {
    lines: reader[Symbol.asyncIterator](),
    close() {
      reader.close();
      input.destroy();
    },
  };
}

function parseLine<T>(line: string, shape: RegExp): T | undefined {
  const text = shape.exec(line)?.[1];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function isHead(value: unknown): value is ShardHead {
  const head = value as Partial<ShardHead> | null;
  return (
    typeof head?.spec?.sha256 === 'string' &&
    typeof head.shard?.index === 'number' &&
    typeof head.shard.of === 'number' &&
    Array.isArray(head.rules) &&
    typeof head.recording?.entries === 'number' &&
    Array.isArray(head.bases) &&
    Array.isArray(head.seen) &&
    typeof head.unreadable?.count === 'number' &&
    typeof head.settings === 'object'
  );
}

function malformed(path: string, line: number, why: string): ShardError {
  return new ShardError(`--merge ${path}: line ${line}: ${why}`);
}

/**
 * Why these shards' files cannot be merged into one verdict, or undefined when they can: the same
 * spec (by its sha256), the same rules, the same settings, the same recording, and every shard of
 * one split exactly once.
 */
export function mismatchOf(
  files: readonly ShardFile[],
  spec: SpecIdentity,
  rules: readonly string[],
): string | undefined {
  const [first] = files;
  if (!first) return '--merge needs the result files of the shards';
  const name = (f: ShardFile) => `${f.path} (shard ${f.head.shard.index}/${f.head.shard.of})`;
  for (const file of files) {
    const { head } = file;
    if (head.suite?.version !== VERSION)
      return `${name(file)} judged by the rules of ${head.suite ? `${head.suite.name} ${head.suite.version}` : 'an earlier version (its file names none)'}, this merge by those of ${TOOL_NAME} ${VERSION}: judge the shards and merge them with one version`;
    if (head.spec.sha256 !== spec.sha256)
      return `${name(file)} judged by another spec (${head.spec.path}, sha256 ${head.spec.sha256.slice(0, 12)}…) than this run's ${spec.path} (sha256 ${spec.sha256.slice(0, 12)}…); merge with --spec naming the shards' spec`;
    if (head.rules.join(' ') !== rules.join(' '))
      return `${name(file)} judged by other rules (${describeRules(head.rules, rules)}); merge with the --only/--skip the shards ran with`;
    if (JSON.stringify(head.settings) !== JSON.stringify(first.head.settings))
      return `${name(file)} ran with other settings than ${first.path} (${settingsDifference(head.settings, first.head.settings)})`;
    if (head.recording.entries !== first.head.recording.entries)
      return `${name(file)} read another recording: ${head.recording.entries} entries, ${first.path} read ${first.head.recording.entries}`;
    if (head.shard.of !== first.head.shard.of)
      return `${name(file)} is of a split in ${head.shard.of}, ${name(first)} of one in ${first.head.shard.of}`;
  }
  const of = first.head.shard.of;
  const counted = new Map<number, string>();
  for (const file of files) {
    const known = counted.get(file.head.shard.index);
    if (known) return `shard ${file.head.shard.index}/${of} given twice: ${known} and ${file.path}`;
    counted.set(file.head.shard.index, file.path);
  }
  const missing = Array.from({ length: of }, (_, i) => i + 1).filter((i) => !counted.has(i));
  if (missing.length > 0)
    return `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${of}`).join(', ')} missing: every shard of the split is needed for the verdict`;
  return undefined;
}

function describeRules(theirs: readonly string[], ours: readonly string[]): string {
  const onlyTheirs = theirs.filter((id) => !ours.includes(id));
  const onlyOurs = ours.filter((id) => !theirs.includes(id));
  const parts = [
    ...(onlyTheirs.length
      ? [`${onlyTheirs.slice(0, 3).join(', ')}${onlyTheirs.length > 3 ? ', …' : ''} not in this run`]
      : []),
    ...(onlyOurs.length
      ? [`${onlyOurs.slice(0, 3).join(', ')}${onlyOurs.length > 3 ? ', …' : ''} not in the shard`]
      : []),
  ];
  return parts.join('; ') || 'in another order';
}

function settingsDifference(a: ShardSettings, b: ShardSettings): string {
  if (JSON.stringify(a.keys) !== JSON.stringify(b.keys)) return 'other configured keys';
  if (a.baseUrl !== b.baseUrl) return `--base-url ${a.baseUrl ?? '(none)'} against ${b.baseUrl ?? '(none)'}`;
  return `web base URL ${a.webBaseUrl ?? '(none)'} against ${b.webBaseUrl ?? '(none)'}`;
}
