/**
 * `node --import tsx examples/partner-client/main.ts`: lists the campaign's walks and reads the
 * stops of the first walk that has any, handling each error by its code.
 *
 * Environment: API_KEY (required; the sandbox's demo keys: `npm run --silent reference-server --
 * --print-credentials`), API_BASE_URL (default http://127.0.0.1:8080, the sandbox).
 * Exit status: 0 done, 1 the API refused or failed, 2 no key given.
 */
import { ApiError, createWalksClient, type WalkDetail, type WalkSummary } from './client.ts';

const LIST_LIMIT = 20;

async function main(): Promise<number> {
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error('partner-client: set API_KEY to your key');
    return 2;
  }
  const client = createWalksClient({ baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:8080', apiKey });
  try {
    const walks = await client.listWalks(LIST_LIMIT);
    console.log(`walks: ${walks.length} (limit ${LIST_LIMIT})`);
    for (const walk of walks.slice(0, 5)) console.log(`  ${describeWalk(walk)}`);
    const withStops = walks.find((walk) => walk.count > 0);
    if (!withStops) {
      console.log('no walk has stops yet');
      return 0;
    }
    const detail = await client.getWalk(withStops.id);
    console.log(`stops of ${detail.name}: ${detail.stops.length}`);
    for (const line of describeStops(detail)) console.log(`  ${line}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.error(`partner-client: ${explain(error)}`);
    return 1;
  }
}

function describeWalk(walk: WalkSummary): string {
  const where = walk.lat === null || walk.lng === null ? 'no coordinates' : `${walk.lat}, ${walk.lng}`;
  return `${walk.id}  ${walk.name}  (${walk.count} stops, ${walk.counts.not_visited} not visited; ${where})`;
}

function describeStops(detail: WalkDetail): string[] {
  return detail.stops.slice(0, 5).map((stop) => {
    const where = stop.lat === null || stop.lng === null ? 'no coordinates' : `${stop.lat}, ${stop.lng}`;
    return `#${stop.position} ${stop.status} (${where})`;
  });
}

/** What to do about each error, by its stable code; an unknown code by its HTTP status. */
function explain(error: ApiError): string {
  switch (error.code) {
    case 'unauthorized':
      return `${error.code}: the key is missing, unknown or revoked; check API_KEY`;
    case 'forbidden':
      return `${error.code}: the key may not read these walks (it needs the walks:read scope): ${error.apiMessage}`;
    case 'not_found':
      return `${error.code}: no such walk in this key's campaign`;
    case 'rate_limited':
      return `${error.code}: still throttled after retrying; wait ${error.retryAfterSeconds ?? '?'} s`;
    case 'invalid_parameter':
      return `${error.code}: ${error.apiMessage}`;
    default:
      return `${error.code}: ${byStatus(error)}`;
  }
}

/** A code this program does not know (another deployment may use others), read by its status. */
function byStatus(error: ApiError): string {
  if (error.status === 401) return `the key was refused (401): ${error.apiMessage}`;
  if (error.status === 403) return `the key may not read walks (403): ${error.apiMessage}`;
  if (error.status === 404) return `not found (404): ${error.apiMessage}`;
  if (error.status === 429) return `still throttled after retrying (429); wait and retry`;
  if (error.status >= 500) return `the API failed (${error.status}); retry later`;
  return `the API refused the request (${error.status}): ${error.apiMessage}`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`partner-client: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
