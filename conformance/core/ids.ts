/**
 * The item id the suite makes up for an item that does not exist. A rule tells it from the request
 * alone, in a live run and in the recording of that run alike: a version-4 UUID whose first 18 hex
 * digits are zeros (no generator of random UUIDs draws that prefix in practice: 2^-72), followed
 * by random ones, so no deployment can hold it and none can keep one answer ready for it.
 */
import { randomBytes } from 'node:crypto';

const UNKNOWN_ID_PREFIX = '00000000-0000-4000-8000-';

/** A fresh unknown id: the prefix, then 12 random hex digits. */
export function unknownIdOf(): string {
  return `${UNKNOWN_ID_PREFIX}${randomBytes(6).toString('hex')}`;
}

/** Whether an id is one the suite made up to name no item. */
export function isUnknownId(id: string): boolean {
  return id.length === UNKNOWN_ID_PREFIX.length + 12 && id.toLowerCase().startsWith(UNKNOWN_ID_PREFIX);
}
