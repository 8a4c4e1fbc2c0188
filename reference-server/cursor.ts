/**
 * Cursors (D-PAGINATION-DECLARED): opaque, issued by this server for one list of one campaign,
 * and refused anywhere else. A cursor is the position of the next page and a tag over that
 * position and the list it belongs to (operation, campaign, item), keyed by the data set's seed:
 * nothing is stored, the same data set issues the same cursors, and a cursor made up, altered or
 * issued for another campaign's list does not read.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface CursorCodec {
  /** The cursor of the page starting at `offset` of the list `list` names. */
  issue(list: string, offset: number): string;
  /** The offset a cursor names, or undefined when this server did not issue it for `list`. */
  read(list: string, cursor: string): number | undefined;
}

const TAG_BYTES = 12;
const POSITION = /^[0-9]{1,9}$/;

export function cursorCodec(secret: string): CursorCodec {
  const tagOf = (list: string, position: string) =>
    createHmac('sha256', secret).update(`${list}\n${position}`).digest().subarray(0, TAG_BYTES);
  return {
    issue(list, offset) {
      const position = String(offset);
      return `${Buffer.from(position).toString('base64url')}.${tagOf(list, position).toString('base64url')}`;
    },
    read(list, cursor) {
      const [encoded, tag, ...rest] = cursor.split('.');
      if (encoded === undefined || tag === undefined || rest.length > 0) return undefined;
      const position = Buffer.from(encoded, 'base64url').toString();
      if (!POSITION.test(position) || Buffer.from(position).toString('base64url') !== encoded)
        return undefined;
      const given = Buffer.from(tag, 'base64url');
      const expected = tagOf(list, position);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return Number(position);
    },
  };
}
