/**
 * `--traffic FILE.har [--base-url URL]`: judges every recorded exchange of this API in a HAR file,
 * without any key, and reports it as a live run is reported. Which exchanges are this API's: those
 * under the base URL, given or inferred from the file (the part of each URL before the API's
 * version prefix, `/api/v1`); a file holding several such bases and no `--base-url` is ambiguous.
 * The file is read once, as a stream; each candidate base is judged as its entries go by, so
 * the answer to "which base?" costs no second reading. A large file is judged on every core
 * (`judge-pool.ts`); its verdicts are merged here in file order, so the report is the same.
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Redactor } from '../redact.ts';
import { contractsFor } from '../runner.ts';
import { summarize } from '../summary.ts';
import { TOOL_NAME, VERSION } from '../tool.ts';
import type { Report } from '../types.ts';
import { sectionOf } from '../drift.ts';
import { API_PREFIX } from './entry.ts';
import { type EntryJudgeOptions, EntryJudges, type EntryVerdict, RepeatedLists } from './entry-verdict.ts';
import { notHar, notJsonReason, NotHarError, scanHarFile } from './har-entries.ts';
import { judgeWithWorkers } from './judge-pool.ts';
import { TrafficJudge } from './judge.ts';
import { SecretLedger } from './secrets.ts';

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
  /**
   * Worker threads judging beside the main thread: 0 judges on the main thread alone; undefined
   * decides by the file's size (`workersFor`). `CONFORMANCE_TRAFFIC_WORKERS` sets it (tests, bench).
   */
  workers?: number;
}

/**
 * Below this size a file is judged on the main thread alone. A worker costs half a second of CPU
 * or more before it judges anything (its module bundled from source, loaded, and Ajv's validators
 * compiled again in its own heap) and some 60 MB, while a file this small is judged in under a
 * second on one thread (some 40 MB/s): workers would not pay for themselves, and the many small
 * recordings of the tests never start one.
 */
export const WORKERS_FROM_BYTES = 32 * 1024 * 1024;
/**
 * Workers at most: each holds its own heap (some 60 MB), and beyond a few the main thread's reading
 * and merging is what the run waits for.
 */
const MAX_WORKERS = 3;

/** Workers for a file: one fewer than the cores (the main thread judges too), none for a small file. */
export function workersFor(file: string, requested: number | undefined): number {
  if (requested !== undefined) return requested;
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // Not readable: the reading says why.
  }
  return size < WORKERS_FROM_BYTES ? 0 : Math.min(MAX_WORKERS, Math.max(1, availableParallelism() - 1));
}

/**
 * The entries' verdicts merged in file order: how many entries, which API bases they went to,
 * a judge per candidate base, and every secret of the entries judged.
 */
class Recording {
  entries = 0;
  readonly ledger = new SecretLedger();
  readonly judges = new Map<string, TrafficJudge>();
  readonly bases = new Map<string, number>();

  private readonly options: TrafficOptions;
  private readonly contracts: ReturnType<typeof contractsFor>;

  constructor(options: TrafficOptions, contracts: ReturnType<typeof contractsFor>) {
    this.options = options;
    this.contracts = contracts;
  }

  add(entry: EntryVerdict): void {
    if (entry.notJson) throw notHar(this.options.file, notJsonReason(entry.index));
    if (entry.failed !== undefined) throw new Error(entry.failed);
    this.entries++;
    const { base } = entry;
    if (base === undefined) return;
    this.bases.set(base, (this.bases.get(base) ?? 0) + 1);
    if (this.options.baseUrl !== undefined && base !== this.options.baseUrl) return;
    let judge = this.judges.get(base);
    if (!judge) {
      if (this.judges.size >= MAX_BASES) return;
      const { open, closed } = this.contracts;
      judge = new TrafficJudge({ ...this.options, baseUrl: base, contract: open, closedContract: closed });
      this.judges.set(base, judge);
    }
    for (const secret of entry.secrets ?? []) this.ledger.note(secret);
    if (entry.verdict) judge.add(entry.verdict);
    else judge.notJudgedEntry(entry.notJudged ?? 'not judged');
  }
}

/**
 * Every entry of the file judged, on the main thread alone or with workers, merged in order.
 * Workers asked for by number (`options.workers`) judge every entry; those the size decides on
 * share the work with the main thread.
 */
async function judgeFile(options: TrafficOptions, recording: Recording): Promise<TrafficRun['threads']> {
  const entryOptions: EntryJudgeOptions = { strict: options.strict };
  if (options.baseUrl !== undefined) entryOptions.baseUrl = options.baseUrl;
  if (options.specPath !== undefined) entryOptions.specPath = options.specPath;
  if (options.selected) entryOptions.selected = [...options.selected];
  const local = new EntryJudges(entryOptions);
  const workers = workersFor(options.file, options.workers);
  const onVerdict = (verdict: EntryVerdict) => recording.add(verdict);
  if (workers > 0) {
    const file = options.file;
    const shared = options.workers === undefined ? { local } : {};
    const entriesOnWorkers = await judgeWithWorkers({
      file,
      workers,
      options: entryOptions,
      ...shared,
      onVerdict,
    });
    return { workers, entriesOnWorkers };
  }
  let index = 0;
  const repeats = new RepeatedLists();
  await scanHarFile(options.file, async (closed) => {
    for (const verdict of await local.judgeAll(closed, index + 1))
      onVerdict(repeats.resolve('main', verdict));
    index += closed.length;
  });
  return { workers: 0, entriesOnWorkers: 0 };
}

export interface TrafficRun {
  report: Report;
  /** Every secret the file held, and anything key-shaped: every text written passes it. */
  redact: Redactor;
  /** Worker threads started, and the entries they judged (the main thread judged the rest). */
  threads: { workers: number; entriesOnWorkers: number };
}

export async function runTraffic(options: TrafficOptions): Promise<TrafficRun> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const contracts = contractsFor(options.specPath);
  const recording = new Recording(options, contracts);
  const threads = await judgeFile(options, recording);
  const { ledger, judges, bases, entries } = recording;
  const redact = ledger.redactor();
  const [base, judge] = chosen(options, judges, bases, entries, redact);
  const results = judge.results();
  const report: Report = {
    tool: { name: TOOL_NAME, version: VERSION },
    spec: contracts.spec,
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
  return { report, redact, threads };
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
