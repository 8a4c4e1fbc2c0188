/**
 * The content of a content-coded answer (RFC 9110 §8.4), decoded so that every check judges the
 * content: whatever coding an answer declares (gzip, x-gzip, deflate, br) is undone, last first,
 * each output held to `--max-response-bytes` (a small bomb is cut off like a large answer). A coding
 * no client knows, or bytes that do not decode, make the answer unreadable: `undecodable`.
 * undici's `decompress` interceptor does not fit: it passes a coding it does not know through
 * undecoded (here that is the answer's fault), decodes `compress` and `zstd` (which no client can be
 * expected to), refuses raw deflate (which clients accept), skips error answers by default, and
 * drops `Content-Encoding` and `Content-Length` from the headers the checks judge.
 */
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';
import { responseOf } from '../core/response-data.ts';
import { RESPONSE_CAP_FLAG } from '../core/exchange.ts';
import type { NetworkFailure, ResponseData } from '../core/exchange.ts';

/** The content coding that is no coding (RFC 9110 §8.4.1). */
export const NO_CODING = 'identity';

/** What arrived of an answer: its status and headers as undici gives them, and its body's bytes. */
interface WireAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  wire: Buffer;
}

/** The answer as the checks judge it: its content decoded from whatever coding it declares. */
export async function contentOf(
  answer: WireAnswer,
  method: string,
  maxBytes: number,
): Promise<ResponseData | NetworkFailure> {
  const coding = codingOf(answer.headers['content-encoding']);
  if (coding === NO_CODING || answer.wire.length === 0 || method === 'HEAD') {
    return responseOf(answer.status, answer.headers, answer.wire);
  }
  const content = await decoded(coding, answer.wire, answer.status, maxBytes);
  if (!Buffer.isBuffer(content)) return content;
  const response = responseOf(answer.status, answer.headers, content);
  response.encoded = { coding, bytes: answer.wire.length };
  return response;
}

/** The content under every coding `coding` names, or why it cannot be read. */
async function decoded(
  coding: string,
  wire: Buffer,
  status: number,
  maxBytes: number,
): Promise<Buffer | NetworkFailure> {
  const codings = coding
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== NO_CODING)
    .reverse();
  let content = wire;
  for (const name of codings) {
    const decode = DECODERS[name];
    if (!decode) {
      return {
        kind: 'undecodable',
        message: `the answer (status ${status}) says Content-Encoding: ${coding}, which no client can be expected to decode (known: ${Object.keys(DECODERS).join(', ')})`,
      };
    }
    try {
      content = await decode(content, { maxOutputLength: maxBytes });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') {
        return {
          kind: 'too-large',
          message: `the answer (status ${status}) decoded from ${name} exceeded ${maxBytes} bytes and was cut off (${RESPONSE_CAP_FLAG})`,
        };
      }
      return {
        kind: 'undecodable',
        message: `the answer (status ${status}) says Content-Encoding: ${coding} but its body does not decode (${code ?? (error as Error).message})`,
      };
    }
  }
  return content;
}

/** The answer's content coding, lower case; `identity` when it names none. */
function codingOf(header: string | string[] | undefined): string {
  const value = [header ?? []].flat().join(',').trim().toLowerCase();
  return value === '' ? NO_CODING : value;
}

type Decoder = (input: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;
const gunzipAsync = promisify(gunzip) as Decoder;
const inflateAsync = promisify(inflate) as Decoder;
const inflateRawAsync = promisify(inflateRaw) as Decoder;
/** `deflate` is zlib-wrapped (RFC 9110 §8.4.1.2); some servers send it raw, which clients accept too. */
const inflateEither: Decoder = (input, options) =>
  inflateAsync(input, options).catch((error: { code?: string }) =>
    error.code === 'ERR_BUFFER_TOO_LARGE' ? Promise.reject(error) : inflateRawAsync(input, options),
  );
/** The codings the client decodes, by name. */
const DECODERS: Record<string, Decoder> = {
  gzip: gunzipAsync,
  'x-gzip': gunzipAsync,
  deflate: inflateEither,
  br: promisify(brotliDecompress) as Decoder,
};
