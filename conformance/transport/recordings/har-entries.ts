/**
 * The entries of a HAR file (`log.entries`), read as a stream: a recording of 10,000 exchanges is
 * some 300 MB, and reading it as one string to `JSON.parse` it would hold several copies of it at
 * once. A small scanner follows the JSON structure byte by byte (jumping through strings with
 * `indexOf`, where most of a recording's bytes are) and keeps only the bytes of the entry it is in.
 * Each entry comes out as its own bytes, parsed on its own (`parseEntry`): the scanning is cheap,
 * the parsing is not.
 */
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { ConfigError } from '../../core/config-error.ts';

/** What the file holds beside its entries, read on the way (`log.version`, `log.creator.name`). */
interface HarHeader {
  version?: string;
  creator?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
/** Keys and the short strings read on the way are kept up to this many bytes. */
const MAX_KEY = 64;

/** The file cannot be read as HAR: exit status 2, in one line that names the file. */
export class NotHarError extends ConfigError {}

/**
 * Where the scanner is: the containers it is inside (`{` or `[`), the key each object member is
 * under, and whether the bytes it reads are inside a string.
 */
class Scanner {
  readonly header: HarHeader = {};
  private readonly stack: number[] = [];
  private readonly keys: (string | undefined)[] = [];
  private inString = false;
  private escaped = false;
  /** Backslashes just before where a skipped string's reading resumes (they escape what follows). */
  private slashRun = 0;
  /** Bytes of the string being read, when it may be a key or a wanted value (short ones only). */
  private text: number[] | undefined;
  private lastString: string | undefined;
  /** A colon was read: the next string is a member's value, not a key. */
  private expectValue = false;
  /** The pieces of the entry being read, and where it started in the current chunk. */
  private pieces: Buffer[] = [];
  private inEntry = false;
  private entryStart = 0;
  private sawEntries = false;
  private started = false;
  /** The bytes of the entries closed so far and not yet taken (`take`). */
  private closed: Buffer[] = [];
  /** Why the bytes read so far are not HAR, once they are not. */
  failure: Error | undefined;

  /** Depth 3 inside `{"log":{"entries":[`: the entries themselves. */
  private inEntries(): boolean {
    return (
      this.stack.length === 3 &&
      this.stack[1] === OPEN_OBJECT &&
      this.keys[1] === 'log' &&
      this.keys[2] === 'entries' &&
      this.stack[2] === OPEN_ARRAY
    );
  }

  /**
   * Reads one chunk. What is not HAR stops the scanner (`failure`); the entries closed before it
   * are still taken, so an entry that is not JSON before it is reported first, as the file reads.
   */
  push(chunk: Buffer): void {
    if (this.failure) return;
    try {
      this.scan(chunk);
    } catch (error) {
      this.failure = error as Error;
    }
  }

  /** The entries closed since the last call, in order. */
  take(): Buffer[] {
    const closed = this.closed;
    this.closed = [];
    return closed;
  }

  private scan(chunk: Buffer): void {
    let i = 0;
    this.entryStart = 0;
    while (i < chunk.length) {
      if (this.inString) {
        i = this.readString(chunk, i);
        continue;
      }
      const byte = chunk[i] as number;
      i++;
      if (byte <= 0x20) continue;
      this.structural(byte, chunk, i - 1);
    }
    // The entry goes on in the next chunk: keep what this one holds of it.
    if (this.inEntry) this.pieces.push(chunk.subarray(this.entryStart));
  }

  /** Reads string bytes from `from`; returns where reading goes on. */
  private readString(chunk: Buffer, from: number): number {
    if (this.text === undefined && !this.escaped) return this.skipString(chunk, from);
    const byte = chunk[from] as number;
    if (this.escaped) {
      this.escaped = false;
      this.text?.push(byte);
      return from + 1;
    }
    if (byte === BACKSLASH) {
      this.escaped = true;
      return from + 1;
    }
    if (byte === QUOTE) {
      this.closeString();
      return from + 1;
    }
    this.text?.push(byte);
    if (this.text && this.text.length > MAX_KEY) this.text = undefined;
    return from + 1;
  }

  /**
   * A string whose bytes are not wanted (a body, most of a recording): jumps from quote to quote,
   * and a quote ends the string unless an odd run of backslashes stands before it. The run may
   * have begun in the previous chunk (`slashRun`).
   */
  private skipString(chunk: Buffer, from: number): number {
    let i = from;
    for (;;) {
      const quote = chunk.indexOf(QUOTE, i);
      const end = quote === -1 ? chunk.length : quote;
      let run = 0;
      while (end - run - 1 >= i && chunk[end - run - 1] === BACKSLASH) run++;
      if (end - run === i) run += this.slashRun;
      if (quote === -1) {
        this.slashRun = run;
        return chunk.length;
      }
      this.slashRun = 0;
      if (run % 2 === 0) {
        this.closeString();
        return quote + 1;
      }
      i = quote + 1;
    }
  }

  private closeString(): void {
    this.inString = false;
    this.lastString = this.text ? Buffer.from(this.text).toString('utf8') : undefined;
    this.text = undefined;
    if (this.expectValue) this.valueRead(this.lastString);
    this.expectValue = false;
  }

  private structural(byte: number, chunk: Buffer, at: number): void {
    if (!this.started) {
      if (byte !== OPEN_OBJECT) throw new Error('it does not start with a JSON object');
      this.started = true;
    }
    if (byte === QUOTE) {
      this.inString = true;
      this.slashRun = 0;
      // Only strings outside the entries are worth reading (keys, version, creator name).
      this.text = this.stack.length <= 3 ? [] : undefined;
      this.lastString = undefined;
      return;
    }
    if (byte === COLON) {
      this.keys[this.stack.length] = this.lastString;
      this.expectValue = true;
      return;
    }
    this.expectValue = false;
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (this.inEntries() && byte === OPEN_OBJECT) {
        this.inEntry = true;
        this.entryStart = at;
      }
      if (this.stack.length === 2 && this.keys[1] === 'log' && this.keys[2] === 'entries')
        this.sawEntries = byte === OPEN_ARRAY;
      this.stack.push(byte);
      this.keys[this.stack.length] = undefined;
      return;
    }
    if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      const open = this.stack.pop();
      if (open !== (byte === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY))
        throw new Error('its brackets do not match');
      if (this.inEntries() && byte === CLOSE_OBJECT) this.closeEntry(chunk, at);
    }
  }

  /** `log.version` and `log.creator.name`, for the report. */
  private valueRead(value: string | undefined): void {
    if (value === undefined || this.keys[1] !== 'log') return;
    if (this.stack.length === 2 && this.keys[2] === 'version') this.header.version = value;
    if (this.stack.length === 3 && this.keys[2] === 'creator' && this.keys[3] === 'name')
      this.header.creator = value;
  }

  private closeEntry(chunk: Buffer, at: number): void {
    this.pieces.push(chunk.subarray(this.entryStart, at + 1));
    this.closed.push(this.pieces.length === 1 ? (this.pieces[0] as Buffer) : Buffer.concat(this.pieces));
    this.pieces = [];
    this.inEntry = false;
  }

  /**
   * At the end of the file: why it is not HAR, or undefined. A file cut off inside an entry, after
   * the entries array began, is a recording cut short (`cutInEntry`): its entries so far are judged.
   */
  end(): Error | undefined {
    if (this.failure) return this.failure;
    if (this.sawEntries && this.inEntry) return undefined;
    if (this.inString || this.stack.length > 0) return new Error('it ends in the middle of its JSON');
    if (!this.started) return new Error('it is empty');
    if (!this.sawEntries) return new Error('it has no log.entries array');
    return undefined;
  }

  /** Whether the bytes end inside an entry (a recording cut short). */
  get cutInEntry(): boolean {
    return this.inEntry;
  }
}

/** Why an entry's bytes are not JSON, without the parser's message: it quotes the text, which may hold a key. */
export const notJsonReason = (index: number) => `entry ${index} is not valid JSON`;

/** An entry's bytes parsed, or `NOT_JSON`. */
export const NOT_JSON: unique symbol = Symbol('not JSON');
export function parseEntry(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(textOf(bytes));
  } catch {
    return NOT_JSON;
  }
}

/** The error of a file that is not HAR: exit status 2, naming the file. */
export function notHar(name: string, reason: string): NotHarError {
  return new NotHarError(`${name} is not a HAR file: ${reason}`);
}

/**
 * Decodes one whole entry, to the same text `toString('utf8')` gives (malformed bytes included),
 * for less: ASCII needs no decoding and is copied as it is; other text (an em dash in a walk name
 * is enough) goes through the streaming UTF-8 decoder, a third cheaper than `toString`, which was
 * a tenth of the judging time. An entry ends with `}`, so the streaming decoder never holds bytes
 * back from one entry to the next; the byte order mark is kept (`ignoreBOM`), as `toString` keeps it.
 */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
function textOf(bytes: Uint8Array): string {
  return isAscii(bytes) ? latin1(bytes) : UTF8.decode(bytes, { stream: true });
}

/** Bytes known to be ASCII as a string; a worker's bytes arrive as a view, not a Buffer. */
function latin1(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString('latin1');
}

/** Bytes read at a time: an entry is judged as soon as its chunk closes it. */
const CHUNK_BYTES = 1024 * 1024;

/** What the end of a HAR stream showed: its header, and whether it was cut off inside an entry. */
export interface HarEnd extends HarHeader {
  cut?: true;
}

/**
 * Calls `onEntries` with the bytes of the entries each chunk of a HAR stream closes, in order,
 * awaiting it before reading on, so the stream never runs ahead of the judge. Anything that is not
 * HAR is a `NotHarError` naming `name`, thrown once the entries before it have been handed on. A
 * stream cut off inside an entry ends with `cut` (a truncated download or gzip file): the entries
 * before it are judged, and the cut one is counted as unreadable.
 */
export async function scanHar(
  chunks: AsyncIterable<Buffer>,
  name: string,
  onEntries: (entries: Buffer[]) => void | Promise<void>,
): Promise<HarEnd> {
  const scanner = new Scanner();
  for await (const chunk of chunks) {
    scanner.push(chunk);
    await onEntries(scanner.take());
    if (scanner.failure) throw notHar(name, scanner.failure.message);
  }
  const failure = scanner.end();
  if (failure) throw notHar(name, failure.message);
  return scanner.cutInEntry ? { ...scanner.header, cut: true } : scanner.header;
}

/** `scanHar` over a file read from disk; a file that cannot be read is a `NotHarError` naming its error code. */
export async function scanHarFile(
  path: string,
  onEntries: (entries: Buffer[]) => void | Promise<void>,
  chunkBytes = CHUNK_BYTES,
): Promise<HarEnd> {
  const stream = createReadStream(path, { highWaterMark: chunkBytes });
  try {
    return await scanHar(stream as AsyncIterable<Buffer>, `--traffic ${path}`, onEntries);
  } catch (error) {
    stream.destroy();
    throw readError(path, error);
  }
}

/** What the common file system errors mean to someone who named a file. */
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'not readable (permission denied)',
  EISDIR: 'a folder, not a recording',
};

/** An error of reading a recording as the run reports it: a file system error in words, with its code. */
export function readError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof NotHarError || !code || !/^E[A-Z]+$/.test(code)) return error;
  const problem = FILE_PROBLEMS[code];
  return new NotHarError(`--traffic ${path}: ${problem ? `${problem} (${code})` : code}`);
}
