/**
 * Content codings of recorded bodies, told by the header and the bytes, never by how the first
 * character looks. Exporters differ: the HAR spec says `content.text` holds the decoded content,
 * yet some keep the bytes as they came (and Playwright keeps the header with decoded bytes). So:
 * - gzip has a magic number (`1f 8b`): with it the body is decoded, without it it already was;
 * - deflate is zlib-wrapped (a header whose check bits hold) or raw: raw has no magic, so it is
 *   decoded when it decodes whole, and taken as it is when it does not;
 * - brotli has no magic at all: the header is trusted, and the body is decoded when it decodes
 *   whole, else taken as already decoded.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/** A decoded body larger than this is not judged (a bomb in a recording is still a bomb). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const LIMIT = { maxOutputLength: MAX_BODY_BYTES };

/** gzip's magic number, RFC 1952. */
export const isGzip = (bytes: Uint8Array) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** A zip's local file header, as Playwright's HAR archives start. */
export const isZip = (bytes: Uint8Array) =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** A zlib header (RFC 1950): method 8 (deflate), a window of at most 32 KiB, and its check bits. */
function isZlib(bytes: Uint8Array): boolean {
  const cmf = bytes[0];
  const flg = bytes[1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (cmf * 256 + flg) % 31 === 0;
}

/** How one coding is undone: the decoded bytes, `AS_IS` when the bytes are not in that coding. */
const AS_IS: unique symbol = Symbol('as is');
type Decoder = (bytes: Buffer) => Buffer | typeof AS_IS;

/** Decodes when the bytes decode whole; otherwise the recorder kept them decoded already. */
const whenItDecodes =
  (decode: (bytes: Buffer) => Buffer): Decoder =>
  (bytes) => {
    try {
      return decode(bytes);
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw error;
      return AS_IS;
    }
  };

const DECODERS: Record<string, Decoder> = {
  gzip: (bytes) => (isGzip(bytes) ? gunzipSync(bytes, LIMIT) : AS_IS),
  'x-gzip': (bytes) => (isGzip(bytes) ? gunzipSync(bytes, LIMIT) : AS_IS),
  deflate: (bytes) =>
    isZlib(bytes) ? inflateSync(bytes, LIMIT) : whenItDecodes((b) => inflateRawSync(b, LIMIT))(bytes),
  br: whenItDecodes((bytes) => brotliDecompressSync(bytes, LIMIT)),
};

export type Decoded =
  /** The body decoded; `coded` when it was decoded here (its coding and its coded size). */
  | { bytes: Buffer; coded?: { coding: string; wireBytes: number } }
  /** Why it cannot be judged. */
  | { unreadable: string };

/** The codings a Content-Encoding header names, in the order they were applied. */
export function codingsOf(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/**
 * Undoes the codings a header names, last applied first. A coding whose bytes are not in it
 * (already decoded by the recorder) stops the undoing: what lies beneath was decoded too.
 */
export function decodeBody(bytes: Buffer, header: string | undefined): Decoded {
  const codings = codingsOf(header);
  let decoded = bytes;
  let undone = 0;
  try {
    for (const name of [...codings].reverse()) {
      const decode = DECODERS[name];
      if (!decode) return { unreadable: `a body coded ${header ?? name}, which this reader cannot decode` };
      const next = decode(decoded);
      if (next === AS_IS) break;
      decoded = next;
      undone++;
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      return { unreadable: `a body larger than ${MAX_BODY_BYTES} bytes once decoded` };
    // A gzip or zlib stream that fails part-way (a cut body): judged as the bytes recorded.
    return { bytes };
  }
  if (undone === 0) return { bytes };
  return { bytes: decoded, coded: { coding: (header ?? '').trim().toLowerCase(), wireBytes: bytes.length } };
}
