/**
 * Where a recording comes from and what form it has, told by its bytes, never by its name: a HAR
 * file, NDJSON (one HAR entry per line, what gateways and log shippers write), either of them gzip
 * coded (`1f 8b`), standard input (`-`), or Playwright's zip (`PK`: its `har.har` and the bodies it
 * attached). A HAR whose entries name their bodies as files (Playwright's `content: 'attach'`) has
 * those bodies read from beside it, or from the zip.
 *
 * Each form comes out the same way: the bytes of each entry, in order, with its index (its place in
 * `log.entries`, or its line in NDJSON), and a way to read an attached body.
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { createGunzip } from 'node:zlib';
import { isGzip, isZip } from './codings.ts';
import { NotHarError, readError, scanHar } from './har-entries.ts';
import { openZip, type ZipBodies } from './zip.ts';

/** One entry as read: its bytes, or why there are none (a line cut off at the end of the file). */
type EntryBytes = { index: number; bytes: Buffer } | { index: number; unreadable: string };

/** The form a recording has, as reports name it. */
type RecordingForm = 'HAR' | 'NDJSON';

interface RecordingEnd {
  form: RecordingForm;
  /** Gzip or zip around it, as reports name it (`gzip`, `Playwright zip`). */
  wrapping?: string;
  creator?: string;
}

/** Reads a body a HAR entry attached as a file (`content._file`), or says why it cannot. */
type AttachedBodies = (file: string) => Promise<Buffer | { missing: string }>;

export interface Recording {
  /** Hands each batch of entries on as the stream closes them; resolves with what the stream was. */
  read(onEntries: (entries: EntryBytes[]) => void | Promise<void>): Promise<RecordingEnd>;
  bodies: AttachedBodies;
}

/** Bytes read at a time from a file. */
const CHUNK_BYTES = 1024 * 1024;
/** Why a cut entry is not judged. */
const CUT_OFF = 'the recording is cut off inside this entry (a truncated file or gzip stream)';

/**
 * Opens `path` (`-`: `stdin`). A file that cannot be opened, is empty, or is not JSON is a
 * `NotHarError` (exit status 2), in one line naming it.
 */
export async function openRecording(path: string, stdin: NodeJS.ReadableStream): Promise<Recording> {
  const name = path === '-' ? '--traffic - (standard input)' : `--traffic ${path}`;
  if (path !== '-' && (await startsWithZip(path))) return zipRecording(path, name);
  const raw = path === '-' ? stdin : createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const bodies = path === '-' ? noAttachedBodies : bodiesBeside(path);
  return {
    bodies,
    read: (onEntries) => readStream(raw as AsyncIterable<Buffer>, name, path, onEntries),
  };
}

async function startsWithZip(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return isZip(head.subarray(0, bytesRead));
  } catch (error) {
    throw readError(path, error);
  } finally {
    await handle?.close();
  }
}

/** Reads a stream of HAR or NDJSON, unwrapping gzip when its first bytes say so. */
async function readStream(
  raw: AsyncIterable<Buffer>,
  name: string,
  path: string,
  onEntries: (entries: EntryBytes[]) => void | Promise<void>,
): Promise<RecordingEnd> {
  try {
    const first = await peeked(raw);
    if (!first) throw new NotHarError(`${name} is empty: no recording to judge`);
    if (isGzip(first.head)) {
      const end = await readDecoded(gunzipped(first.chunks), name, onEntries);
      return { ...end, wrapping: 'gzip' };
    }
    return await readDecoded(first.chunks, name, onEntries);
  } catch (error) {
    throw readError(path, error);
  }
}

/** HAR or NDJSON, told by the first member of the first object: a HAR file's is `log`. */
async function readDecoded(
  chunks: AsyncIterable<Buffer>,
  name: string,
  onEntries: (entries: EntryBytes[]) => void | Promise<void>,
): Promise<RecordingEnd> {
  const first = await peeked(chunks);
  if (!first) throw new NotHarError(`${name} is empty: no recording to judge`);
  const form = formOf(first);
  if (form === undefined)
    throw new NotHarError(
      `${name} is neither HAR nor NDJSON of HAR entries: it does not start with a JSON object`,
    );
  if (form === 'NDJSON') {
    await readLines(first.chunks, onEntries);
    return { form };
  }
  let index = 0;
  const end = await scanHar(first.chunks, name, (closed) =>
    onEntries(closed.map((bytes) => ({ index: ++index, bytes }))),
  );
  if (end.cut) await onEntries([{ index: index + 1, unreadable: CUT_OFF }]);
  return { form, ...(end.creator ? { creator: end.creator } : {}) };
}

interface Peeked {
  /** The first bytes (at least the first non-blank ones, when there are any). */
  head: Buffer;
  /** Every chunk, the peeked ones first. */
  chunks: AsyncIterable<Buffer>;
}

/** The first bytes of a stream, and the whole stream again; undefined when it holds nothing but blanks. */
async function peeked(source: AsyncIterable<Buffer>): Promise<Peeked | undefined> {
  const iterator = source[Symbol.asyncIterator]();
  const taken: Buffer[] = [];
  let bytes = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    taken.push(chunk);
    bytes += chunk.length;
    // Enough to tell the form: the first member's name lies within a few hundred bytes.
    const at = firstNonBlank(Buffer.concat(taken));
    if (bytes >= 4096 || (at !== -1 && bytes - at >= 512)) break;
  }
  const head = Buffer.concat(taken);
  if (head.length === 0 || (firstNonBlank(head) === -1 && !isGzip(head))) return undefined;
  async function* chunks(): AsyncGenerator<Buffer> {
    yield* taken;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    }
  }
  return { head, chunks: chunks() };
}

const BLANK = new Set([0x20, 0x09, 0x0a, 0x0d]);
const BOM = [0xef, 0xbb, 0xbf];

function firstNonBlank(bytes: Buffer): number {
  let i = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  while (i < bytes.length && BLANK.has(bytes[i] as number)) i++;
  return i < bytes.length ? i : -1;
}

/**
 * HAR when the first object's first member is `log` (a HAR file has no other), NDJSON when it is
 * any other member (an entry's own: `startedDateTime`, `request`...); undefined when it is no object.
 */
function formOf(first: Peeked): RecordingForm | undefined {
  const at = firstNonBlank(first.head);
  if (first.head[at] !== 0x7b) return undefined;
  const rest = first.head.subarray(at + 1).toString('latin1');
  const key = /^\s*"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1];
  return key === 'log' ? 'HAR' : 'NDJSON';
}

/**
 * NDJSON: each line is one entry, numbered by its line; blank lines are skipped. A last line
 * without its newline is still an entry: a parser then says whether it is whole.
 */
async function readLines(
  chunks: AsyncIterable<Buffer>,
  onEntries: (entries: EntryBytes[]) => void | Promise<void>,
): Promise<void> {
  let line = 0;
  let pending: Buffer[] = [];
  for await (const chunk of chunks) {
    const batch: EntryBytes[] = [];
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, from);
      if (newline === -1) break;
      const piece = chunk.subarray(from, newline);
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      line++;
      if (firstNonBlank(bytes) !== -1) batch.push({ index: line, bytes });
      from = newline + 1;
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
    if (batch.length > 0) await onEntries(batch);
  }
  const last = Buffer.concat(pending);
  if (firstNonBlank(last) !== -1) await onEntries([{ index: line + 1, bytes: last }]);
}

/**
 * Gunzips a stream. A gzip stream cut short ends what it gives with the bytes decoded so far (the
 * entry it was cut in is then incomplete, and counted as unreadable by the reader above).
 */
async function* gunzipped(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  const feeding = (async () => {
    try {
      for await (const chunk of chunks) {
        if (!gunzip.write(chunk)) await new Promise((done) => gunzip.once('drain', done));
      }
      gunzip.end();
    } catch (error) {
      gunzip.destroy(error as Error);
    }
  })();
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    // "unexpected end of file": the gzip stream is truncated; what it held so far has been given.
    if ((error as NodeJS.ErrnoException).code !== 'Z_BUF_ERROR') throw gzipError(error);
  }
  await feeding;
}

function gzipError(error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code && code.startsWith('Z_'))
    return new NotHarError(`--traffic: the gzip stream is damaged (${code})`);
  return error as Error;
}

const noAttachedBodies: AttachedBodies = async (file) => ({
  missing: `its body is attached as ${JSON.stringify(file)}, and standard input has no files beside it`,
});

/** Bodies attached as files beside a HAR file (Playwright's `content: 'attach'`), never outside its folder. */
function bodiesBeside(path: string): AttachedBodies {
  const folder = dirname(resolve(path));
  return async (file) => {
    const target = resolve(folder, file);
    const inside = relative(folder, target);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
      return { missing: `its attached body ${JSON.stringify(file)} lies outside the recording's folder` };
    try {
      return await readFile(target);
    } catch {
      return { missing: `its attached body ${JSON.stringify(file)} is not beside the recording` };
    }
  };
}

/** Playwright's zip: its HAR (`har.har`, or the one `.har` it holds) and the bodies beside it. */
async function zipRecording(path: string, name: string): Promise<Recording> {
  let zip: ZipBodies;
  try {
    zip = await openZip(path);
  } catch (error) {
    throw new NotHarError(`${name} is a zip file that cannot be read: ${(error as Error).message}`);
  }
  const har = zip.harName();
  if (har === undefined) {
    await zip.close();
    throw new NotHarError(`${name} is a zip file without a .har file in it`);
  }
  return {
    bodies: (file) => zip.read(file),
    async read(onEntries) {
      try {
        const end = await readDecoded(await zip.stream(har), name, onEntries);
        return { ...end, wrapping: 'Playwright zip' };
      } finally {
        await zip.close();
      }
    },
  };
}
