/**
 * D-COMPRESSION: which content coding an answer gets. A success body of at least
 * `GZIP_MIN_BYTES` goes gzip-encoded to a client whose `Accept-Encoding` prefers gzip at least as
 * much as the identity coding; everything else goes as it is. Each body is compressed once, on
 * its first gzip request, and kept with its own strong ETag, so a request never compresses.
 */
import { constants, gzipSync } from 'node:zlib';
import { remembered } from '../spec/remembered.ts';

/** Below this, gzip's header and dictionary cost more than they save. */
export const GZIP_MIN_BYTES = 1024;

/** A body as sent: its bytes and the strong ETag of exactly those bytes. */
export interface EncodedBody {
  bytes: Buffer;
  etag: string;
}

/** The gzip form of an identity body, or undefined when it would not be worth sending. */
export function gzipEncoded(identity: EncodedBody): EncodedBody | undefined {
  if (identity.bytes.length < GZIP_MIN_BYTES) return undefined;
  const bytes = gzipSync(identity.bytes, { level: constants.Z_BEST_COMPRESSION });
  if (bytes.length >= identity.bytes.length) return undefined;
  // RFC 9110 §8.8.3: a strong validator differs between codings of the same content.
  return { bytes, etag: `${identity.etag.slice(0, -1)}-gzip"` };
}

/** Parsed answers for the few distinct header values real clients send. */
const parsed = remembered(parsePrefersGzip, 64);

/**
 * Whether `Accept-Encoding` (RFC 9110 §12.5.3) asks for gzip: `gzip`, `x-gzip` or `*` with a
 * q-value above 0 and not below the identity coding's. Absent, empty or malformed: no.
 */
export function prefersGzip(header: string | undefined): boolean {
  return header ? parsed(header) : false;
}

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

function parsePrefersGzip(header: string): boolean {
  let gzip: number | undefined;
  let identity: number | undefined;
  let any: number | undefined;
  for (const element of header.split(',')) {
    const [rawCoding = '', ...params] = element.split(';');
    const coding = rawCoding.trim().toLowerCase();
    if (coding === '' && params.length === 0) continue; // empty list elements are allowed
    if (!TOKEN.test(coding)) return false;
    let q = 1;
    for (const param of params) {
      const equals = param.indexOf('=');
      const name = param.slice(0, Math.max(equals, 0)).trim().toLowerCase();
      const value = param.slice(equals + 1).trim();
      if (equals === -1 || name !== 'q' || !QVALUE.test(value)) return false;
      q = Number(value);
    }
    if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (coding === 'identity') identity = q;
    else if (coding === '*') any = q;
  }
  const gzipQ = gzip ?? any ?? 0;
  const identityQ = identity ?? any ?? 1;
  return gzipQ > 0 && gzipQ >= identityQ;
}
