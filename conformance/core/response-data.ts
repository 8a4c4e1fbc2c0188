/**
 * An answer as the checks judge it (`ResponseData`), built from its status, headers and content:
 * its JSON parsed once, its media type read once. The live client builds one from what undici gave
 * it (`responseOf`), a recording's reader from an entry (`answerOf`), so both are judged alike.
 */
import type { ResponseData } from './exchange.ts';

/** An answer as the checks judge it, from its status, headers and (decoded) content, bytes or text. */
export function responseOf(
  status: number,
  raw: Record<string, string | string[] | undefined>,
  content: Buffer | string,
): ResponseData {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return answerOf(status, headers, content);
}

/** How an answer's body is read: its JSON, and the size in bytes of a body given as text. */
export interface BodyReader {
  json(response: ResponseData): unknown;
  bytes(response: ResponseData): number;
}

/** Each answer's body read afresh. */
const EACH_BODY: BodyReader = {
  json: (response) => JSON.parse(response.body),
  bytes: (response) => Buffer.byteLength(response.body),
};

/**
 * An answer from headers already in lower case, one value each (a recording's). A recording's
 * reader gives a `reader` that reads each distinct body once for all the answers that carry it.
 */
export function answerOf(
  status: number,
  headers: Record<string, string>,
  content: Buffer | string,
  reader: BodyReader = EACH_BODY,
): ResponseData {
  // A recording (`--traffic`) holds most bodies as text already.
  const body = typeof content === 'string' ? content : content.toString('utf8');
  const response: ResponseData = { status, headers, body, bytes: 0 };
  response.bytes = typeof content === 'string' ? reader.bytes(response) : content.length;
  const contentType = headers['content-type'];
  if (contentType !== undefined) {
    response.contentType = contentType;
    response.mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  }
  if (body.trim() !== '') {
    try {
      response.json = reader.json(response);
    } catch (error) {
      response.jsonError = `not JSON (${(error as Error).message}); it starts ${JSON.stringify(body.slice(0, 60))}`;
    }
  }
  return response;
}
