/**
 * `--traffic FILE.har [--base-url URL]`: judges every recorded exchange of this API in a HAR file,
 * without any key, and reports it as a live run is reported. Which exchanges are this API's: those
 * under the base URL, given or inferred from the file (the part of each URL before the API's
 * version prefix, `/api/v1`); a file holding several such bases and no `--base-url` is ambiguous.
 * The file is read once, as a stream; each candidate base is judged as its entries go by, so
 * the answer to "which base?" costs no second reading.
 */
import { WALKS_PATH } from '../../spec/facts.ts';
import type { Redactor } from '../redact.ts';
import { contractsFor } from '../runner.ts';
import { summarize } from '../summary.ts';
import { TOOL_NAME, VERSION } from '../tool.ts';
import type { Report } from '../types.ts';
import { sectionOf } from '../drift.ts';
import { readEntry, requestOf, type RawEntry } from './entry.ts';
import { NotHarError, readHarEntries } from './har-entries.ts';
import { TrafficJudge } from './judge.ts';
import type { Answered } from './rules.ts';
import { SecretLedger } from './secrets.ts';

/** The API's version prefix (§9): the path of the walk list without its last segment. */
export const API_PREFIX = WALKS_PATH.slice(0, WALKS_PATH.lastIndexOf('/'));

/** Candidate bases judged at once before the file is known to be ambiguous anyway. */
const MAX_BASES = 8;

export interface TrafficOptions {
  file: string;
  /** Normalized (`normalizeBaseUrl`); inferred from the file when undefined. */
  baseUrl?: string;
  strict: boolean;
  seed: number;
  specPath?: string;
  /** The rule ids to judge (`--only`/`--skip` applied); every rule when undefined. */
  selected?: ReadonlySet<string>;
}

export interface TrafficRun {
  report: Report;
  /** Every secret the file held, and anything key-shaped: every text written passes it. */
  redact: Redactor;
}

/** The API base URL of a request: its origin and the path before `/api/v1`, or undefined. */
export function apiBaseOf(url: URL): string | undefined {
  const path = url.pathname;
  const at = path.endsWith(API_PREFIX) ? path.length - API_PREFIX.length : path.indexOf(`${API_PREFIX}/`);
  if (at === -1) return undefined;
  return `${url.origin}${path.slice(0, at)}`;
}

export async function runTraffic(options: TrafficOptions): Promise<TrafficRun> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { open, closed, spec } = contractsFor(options.specPath);
  const ledger = new SecretLedger();
  const judges = new Map<string, TrafficJudge>();
  const bases = new Map<string, number>();
  let entries = 0;
  await readHarEntries(options.file, async (raw, index) => {
    entries++;
    const request = requestOf(raw);
    const base = request ? apiBaseOf(request.url) : undefined;
    if (!request || !base) return;
    bases.set(base, (bases.get(base) ?? 0) + 1);
    if (options.baseUrl !== undefined && base !== options.baseUrl) return;
    let judge = judges.get(base);
    if (!judge) {
      if (judges.size >= MAX_BASES) return;
      judge = new TrafficJudge({ ...options, baseUrl: base, contract: open, closedContract: closed });
      judges.set(base, judge);
    }
    const reading = readEntry(raw as RawEntry, index, request, ledger);
    if (!reading.judged) judge.notJudgedEntry(reading.reason);
    else await judge.add(reading.exchange as Answered, reading.identity);
  });
  const redact = ledger.redactor();
  const [base, judge] = chosen(options, judges, bases, entries, redact);
  const results = judge.results();
  const report: Report = {
    tool: { name: TOOL_NAME, version: VERSION },
    spec,
    target: { baseUrl: base, profile: 'live', strict: options.strict, embedded: false },
    startedAt,
    durationMs: Math.round(performance.now() - started),
    requests: { sent: 0, budget: 0, memoized: 0 },
    summary: summarize(results),
    results,
    drift: sectionOf(judge.observations(), judge.driftJudged),
    coverage: {
      seed: options.seed,
      operations: judge.statusCoverage(),
      requirements: results.map((r) => ({
        id: r.id,
        status: r.status,
        ...(r.judged ?? { requests: 0, records: 0, unit: 'records' }),
      })),
      gaps: gapsOf(judge, results),
      traffic: {
        file: options.file,
        entries,
        ofApi: judge.entries,
        judged: judge.judged,
        notJudged: [...judge.notJudged].map(([reason, n]) => ({ reason, entries: n })),
      },
    },
  };
  return { report, redact };
}

/** The one base judged, or why the file cannot be judged (exit status 2). */
function chosen(
  options: TrafficOptions,
  judges: Map<string, TrafficJudge>,
  bases: Map<string, number>,
  entries: number,
  redact: Redactor,
): [string, TrafficJudge] {
  const found = [...bases]
    .sort((a, b) => b[1] - a[1])
    .map(([base, n]) => `${base} (${n} ${n === 1 ? 'entry' : 'entries'})`);
  const [only] = judges;
  if (judges.size === 1 && only) return only;
  if (judges.size === 0) {
    const under = options.baseUrl ? `under ${options.baseUrl}${API_PREFIX}/` : `under a …${API_PREFIX}/ path`;
    const others = found.length > 0 ? `; it holds exchanges under ${found.slice(0, 5).join(', ')}` : '';
    throw new NotHarError(
      redact(
        `--traffic ${options.file} holds no exchange of this API ${under} (${entries} entries)${others}`,
      ),
    );
  }
  throw new NotHarError(
    redact(
      `--traffic ${options.file} holds exchanges of ${bases.size} API base URLs: ${found.slice(0, 5).join(', ')}${bases.size > 5 ? ', …' : ''}\nchoose one with --base-url`,
    ),
  );
}

/** Entries of this API that were not judged, and rules the recording gave nothing to judge. */
function gapsOf(judge: TrafficJudge, results: Report['results']): string[] {
  const entries = [...judge.notJudged].map(
    ([reason, n]) => `${n} ${n === 1 ? 'entry' : 'entries'} of this API not judged: ${reason}`,
  );
  const rules = results
    .filter((r) => r.status === 'inconclusive')
    .map((r) => `${r.id} (${r.area}): ${r.reason ?? ''} → inconclusive`);
  return [...entries, ...rules];
}
