/**
 * `node --import tsx examples/partner-client/main.ts`: lists the campaign's walks (as many as v1
 * gives: at most 200), reads every listed walk, and prints what it found with a digest of it all,
 * handling each error by its code. Timeouts, resets, cut answers, 5xx and 429 are retried (client.ts).
 *
 * Environment: API_KEY (required; `npm start` prints the sandbox's demo keys), API_BASE_URL
 * (default http://127.0.0.1:8080, the sandbox), API_LIST_LIMIT (1 to 200, default 200),
 * API_TIMEOUT_MS (per request, default 10000).
 * Exit status: 0 done, 1 the API refused or failed, 2 bad configuration.
 */
import { createHash } from 'node:crypto';
import {
  ApiError,
  createWalksClient,
  type RetryNotice,
  type WalkDetail,
  type WalkSummary,
} from './client.ts';

/** v1 lists at most 200 walks and has no pagination: a campaign with more cannot be listed whole. */
const MAX_LIMIT = 200;
/** Where `npm start` serves the sandbox: the address tried when API_BASE_URL is not set. */
const SANDBOX_URL = 'http://127.0.0.1:8080';

async function main(): Promise<number> {
  const apiKey = process.env.API_KEY;
  const limit = Number(process.env.API_LIST_LIMIT ?? MAX_LIMIT);
  const timeoutMs = Number(process.env.API_TIMEOUT_MS ?? 10_000);
  if (!apiKey) return configError('set API_KEY to your key');
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    return configError('API_LIST_LIMIT: 1 to 200');
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) return configError('API_TIMEOUT_MS: milliseconds');
  const baseUrl = process.env.API_BASE_URL ?? SANDBOX_URL;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    return configError(
      `API_BASE_URL: an http(s) address such as ${SANDBOX_URL}, not ${JSON.stringify(baseUrl)}`,
    );
  }
  const client = createWalksClient({
    baseUrl,
    apiKey,
    timeoutMs,
    onRetry: logRetry,
  });
  try {
    const walks = await client.read('/api/v1/walks', { query: { limit } });
    console.log(`walks: ${walks.length} (limit ${limit})`);
    if (walks.length === MAX_LIMIT) console.log('  the campaign may have more: v1 lists at most 200 walks');
    for (const walk of walks.slice(0, 5)) console.log(`  ${describeWalk(walk)}`);
    const details: WalkDetail[] = [];
    for (const walk of walks)
      details.push(await client.read('/api/v1/walks/{id}', { path: { id: walk.id } }));
    report(details);
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.error(`partner-client: ${explain(error, baseUrl)}`);
    return 1;
  }
}

function configError(message: string): number {
  console.error(`partner-client: ${message}`);
  return 2;
}

/** One line per retry, on stderr: what failed and how long the client waits (never a header). */
function logRetry({ request, attempt, reason, delayMs }: RetryNotice): void {
  console.error(`partner-client: retry ${attempt} of ${request} in ${delayMs} ms (${reason})`);
}

/** What was read: the count, the first walk with stops, and a digest to compare runs by. */
function report(details: WalkDetail[]): void {
  const stops = details.reduce((sum, detail) => sum + detail.stops.length, 0);
  console.log(`read ${details.length} walks: ${stops} stops`);
  const withStops = details.find((detail) => detail.stops.length > 0);
  if (withStops) {
    console.log(`stops of ${withStops.name}: ${withStops.stops.length}`);
    for (const line of describeStops(withStops)) console.log(`  ${line}`);
  } else {
    console.log('no walk has stops yet');
  }
  console.log(`digest: ${createHash('sha256').update(JSON.stringify(details)).digest('hex')}`);
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
function explain(error: ApiError, baseUrl: string): string {
  switch (error.code) {
    case 'unauthorized':
      return `${error.code}: the key is missing, unknown or revoked; check API_KEY`;
    case 'forbidden':
      return `${error.code}: the key may not read these walks (it needs the walks:read scope): ${error.apiMessage}`;
    case 'not_found':
      return `${error.code}: no such walk in this key's campaign`;
    case 'rate_limited':
      return `${error.code}: still throttled after retrying; wait ${error.retryAfterSeconds ?? '?'} s`;
    case 'no_answer':
      return (
        `${error.code}: no answer from ${baseUrl} after retrying (${error.apiMessage}); is the API running ` +
        `there? Set API_BASE_URL to its address (default ${SANDBOX_URL}, the sandbox that npm start runs).`
      );
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
