/**
 * The pre-flight's second look, a diagnosis rather than a retry: before it calls the primary key
 * rejected, it asks the same operation with the same key in the other header (§5.2: either header
 * carries it). Accepted there, the refusal is the deployment's fault, for the checks to judge
 * (exit 1), not the tester's setup mistake (exit 2).
 */
import type { HttpClient } from '../../transport/client.ts';
import { PRIMARY } from '../../core/key-uses.ts';
import type { Via } from '../../core/exchange.ts';

const HEADER: Record<Via, string> = { bearer: 'Authorization: Bearer', 'x-api-key': 'x-api-key' };

/**
 * Why a key refused in its usual header on `path` (the pre-flight's operation) is still usable (a
 * line naming both headers), or undefined when the other header refuses it too.
 */
export async function acceptedInOtherHeader(
  client: HttpClient,
  path: string,
  refusedStatus: number,
): Promise<string | undefined> {
  const via: Via = PRIMARY.via === 'bearer' ? 'x-api-key' : 'bearer';
  const other = await client.send({ path, auth: { ...PRIMARY, via } });
  if (other.response?.status !== 200) return undefined;
  return (
    `${PRIMARY.key} is refused in ${HEADER[PRIMARY.via]} (${refusedStatus}) but accepted in ${HEADER[via]}: ` +
    `the deployment must accept the key in either header (§5.2); the checks judge it`
  );
}
