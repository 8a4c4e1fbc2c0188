/**
 * The pre-flight's second look: before it calls the primary key rejected, the same key
 * in the other header (§5.2: either header carries it). Accepted there, the refusal is the
 * deployment's fault, for the checks to judge (exit 1), not the tester's setup mistake (exit 2).
 */
import { WALKS_PATH } from '../../spec/facts.ts';
import type { HttpClient } from './client.ts';
import { PRIMARY } from '../core/key-uses.ts';
import type { Via } from '../core/exchange.ts';

const HEADER: Record<Via, string> = { bearer: 'Authorization: Bearer', 'x-api-key': 'x-api-key' };

/**
 * Why a key refused in its usual header is still usable (a line naming both headers), or undefined
 * when the other header refuses it too.
 */
export async function acceptedInOtherHeader(
  client: HttpClient,
  refusedStatus: number,
): Promise<string | undefined> {
  const via: Via = PRIMARY.via === 'bearer' ? 'x-api-key' : 'bearer';
  const retry = await client.send({ path: WALKS_PATH, auth: { ...PRIMARY, via } });
  if (retry.response?.status !== 200) return undefined;
  return (
    `${PRIMARY.key} is refused in ${HEADER[PRIMARY.via]} (${refusedStatus}) but accepted in ${HEADER[via]}: ` +
    `the deployment must accept the key in either header (§5.2); the checks judge it`
  );
}
