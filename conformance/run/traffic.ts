/**
 * `--traffic FILE`: every recorded exchange of this API judged by the same rules, through the same
 * judge, as a live run's exchanges. Which exchanges are this API's: those under the base URL,
 * given or inferred from the file (the part of each URL before the API's prefix, `/api/v1`); a file
 * holding several such bases and no `--base-url` is ambiguous. The file is read once, as a stream;
 * each candidate base is judged as its entries go by.
 *
 * An entry that cannot be read is counted and named, never skipped in silence; a run that could
 * read fewer than 90 % of this API's entries cannot judge the recording (exit status 2).
 */
import { Keyring } from '../core/credentials.ts';
import { BudgetedState } from '../core/state.ts';
import { observe, type ObserveOptions } from '../core/observe.ts';
import type { Rule } from '../core/rule.ts';
import type { SpecModel } from '../core/spec-model.ts';
import type { Redactor } from '../core/redact.ts';
import {
  apiBaseOf,
  attachedFileOf,
  readEntry,
  requestOf,
  type RawEntry,
} from '../transport/recordings/entry.ts';
import { NOT_JSON, NotHarError, parseEntry } from '../transport/recordings/har-entries.ts';
import { openRecording } from '../transport/recordings/source.ts';
import { withBodiesWithheld } from '../transport/recordings/withheld.ts';
import { SecretLedger } from '../transport/recordings/secrets.ts';
import type { KeyName } from '../core/roles.ts';
import type { Report, SuiteConfig } from '../core/types.ts';
import { Judge } from './judge.ts';
import { ruleContextOf } from './live.ts';
import { reportOf } from './report.ts';

/** Candidate bases judged at once before the file is known to be ambiguous anyway. */
const MAX_BASES = 8;
/** The memory the cross-exchange state may take before it spills to disk (`--traffic-memory`). */
export const DEFAULT_MEMORY_BYTES = 256 * 1024 * 1024;
/** The share of this API's entries a run must read to judge the recording. */
export const READABLE_SHARE = 0.9;
/** Unreadable entries named one by one in a report; beyond them, counted. */
const MAX_NAMED = 50;

export interface TrafficOptions {
  /** A HAR, NDJSON, gzip or Playwright zip file; `-`: standard input (`input`). */
  file: string;
  /** Standard input, for `-` (default `process.stdin`). */
  input?: NodeJS.ReadableStream;
  /** The memory the cross-exchange state may take before it spills to disk (`--traffic-memory`). */
  memoryBytes?: number;
  /** `--redact-bodies`: findings withhold every value read from a body (`withheld.ts`). */
  redactBodies?: boolean;
  /** Normalized; inferred from the file when undefined. */
  baseUrl?: string;
  strict: boolean;
  seed: number;
  /** Configured keys: a recorded key that matches one is named by its role. */
  keys: Partial<Record<KeyName, string>>;
  webBaseUrl?: string;
}

export interface TrafficRun {
  report: Report;
  /** Every secret the file held, and anything key-shaped: every text written passes it. */
  redact: Redactor;
}

/** What the entries of one candidate base were: read, or not and why. */
class EntryCounts {
  entries = 0;
  readable = 0;
  readonly unreadable: { index: number; reason: string }[] = [];
  unreadableCount = 0;
  readonly notJudged = new Map<string, number>();
  /** Answers recorded without their bodies: judged on status and headers alone. */
  bodyless = 0;

  /** Counts the unreadable entries met before this base was: they may have been its own. */
  inherit(early: EntryCounts): void {
    this.entries += early.entries;
    this.unreadableCount += early.unreadableCount;
    this.unreadable.push(...early.unreadable);
    for (const [reason, n] of early.notJudged) this.notJudged.set(reason, n);
  }

  cannotRead(index: number, reason: string): void {
    this.unreadableCount++;
    if (this.unreadable.length < MAX_NAMED) this.unreadable.push({ index, reason });
    this.notJudged.set(reason, (this.notJudged.get(reason) ?? 0) + 1);
  }
}

/** One candidate API base: its judge and what its entries were. */
class Base extends EntryCounts {
  readonly url: string;
  readonly judge: Judge;

  constructor(url: string, judge: Judge) {
    super();
    this.url = url;
    this.judge = judge;
  }
}

export async function runTraffic(
  spec: SpecModel,
  options: TrafficOptions,
  rules: readonly Rule[],
): Promise<TrafficRun> {
  const started = performance.now();
  const startedAt = new Date();
  const keyring = new Keyring({
    keys: options.keys,
    ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}),
  });
  const config = {
    strict: options.strict,
    keys: options.keys,
    ...(options.webBaseUrl ? { webBaseUrl: options.webBaseUrl } : {}),
  };
  const ledger = new SecretLedger();
  const states: BudgetedState[] = [];
  // The request headers the rules read; a recording's other headers are never shown.
  const keptHeaders = new Set(rules.flatMap((rule) => rule.requestHeaders ?? []).map((h) => h.toLowerCase()));
  const bases = new Map<string, Base>();
  const seenBases = new Map<string, number>();
  let entries = 0;

  const baseOf = (url: string): Base | undefined => {
    seenBases.set(url, (seenBases.get(url) ?? 0) + 1);
    if (options.baseUrl !== undefined && url !== options.baseUrl) return undefined;
    let base = bases.get(url);
    if (!base) {
      if (bases.size >= MAX_BASES) return undefined;
      const state = new BudgetedState(options.memoryBytes ?? DEFAULT_MEMORY_BYTES);
      states.push(state);
      base = new Base(
        url,
        new Judge(rules, ruleContextOf(spec, config as SuiteConfig, 'traffic', undefined, state)),
      );
      base.inherit(early);
      bases.set(url, base);
    }
    return base;
  };

  const recording = await openRecording(options.file, options.input ?? process.stdin);
  // Entries that could not be read before a base was seen count against the bases found later.
  const early = new EntryCounts();
  const unreadable = (index: number, reason: string) => {
    // Which API an unreadable entry belonged to is unknown: it counts against every base.
    for (const base of [early, ...bases.values()]) {
      base.entries++;
      base.cannotRead(index, reason);
    }
  };
  await recording.read(async (batch) => {
    for (const item of batch) {
      entries++;
      const { index } = item;
      if ('unreadable' in item) {
        unreadable(index, item.unreadable);
        continue;
      }
      const raw = parseEntry(item.bytes);
      if (raw === NOT_JSON) {
        unreadable(index, 'not valid JSON');
        continue;
      }
      const request = requestOf(raw);
      const url = request ? apiBaseOf(request.url, spec.apiPrefix) : undefined;
      if (!request || url === undefined) continue;
      const base = baseOf(url);
      if (!base) continue;
      base.entries++;
      const file = attachedFileOf(raw as RawEntry);
      const attached = file === undefined ? undefined : await recording.bodies(file);
      if (attached && !Buffer.isBuffer(attached)) {
        base.cannotRead(index, attached.missing);
        continue;
      }
      const reading = readEntry(raw as RawEntry, index, request, ledger, keyring, attached, keptHeaders);
      if (!reading.judged) {
        base.cannotRead(index, reading.reason);
        continue;
      }
      base.readable++;
      if (reading.bodyless) base.bodyless++;
      const observeOptions: ObserveOptions = {
        spec,
        keyring,
        basePath: new URL(url).pathname.replace(/\/+$/, ''),
        source: 'traffic',
      };
      base.judge.see(observe(reading.exchange, observeOptions, {}, reading.bodyless));
    }
  });
  const redact = ledger.redactor();
  let base: Base;
  let tallies: ReturnType<Judge['finish']>;
  try {
    base = chosen(options, bases, seenBases, entries, redact, spec.apiPrefix);
    tallies = base.judge.finish();
  } finally {
    for (const state of states) state.close();
  }
  const report = reportOf({
    spec,
    source: 'traffic',
    strict: options.strict,
    seed: options.seed,
    tallies,
    judge: base.judge,
    skipped: [],
    order: rules.map((r) => r.id),
    exchanges: [],
    baseUrl: base.url,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    requests: { sent: 0, budget: 0, memoized: 0 },
    target: { baseUrl: base.url, profile: 'live', strict: options.strict, embedded: false },
  });
  const coverage = report.coverage;
  if (coverage) {
    coverage.traffic = {
      file: options.file,
      entries,
      ofApi: base.entries,
      judged: base.readable,
      notJudged: [...base.notJudged].map(([reason, n]) => ({ reason, entries: n })),
    };
    if (base.bodyless > 0) coverage.traffic.bodyless = base.bodyless;
    if (base.unreadable.length > 0) {
      coverage.traffic.unreadable = base.unreadable.map(({ index: at, reason }) => `entry #${at}: ${reason}`);
      if (base.unreadableCount > base.unreadable.length) {
        coverage.traffic.unreadable.push(`… and ${base.unreadableCount - base.unreadable.length} more`);
      }
    }
  }
  if (base.entries > 0 && base.readable < READABLE_SHARE * base.entries) {
    const reasons = [...base.notJudged].map(([reason, n]) => `${n} ${reason}`);
    report.unreachable = `--traffic ${options.file}: read ${base.readable} of ${base.entries} exchanges of this API (${Math.round((100 * base.readable) / base.entries)}%, fewer than ${READABLE_SHARE * 100}%): ${reasons.join(', ')}`;
    report.summary.verdict = 'not judged';
  }
  return { report: options.redactBodies ? withBodiesWithheld(report) : report, redact };
}

/** The one base judged, or why the file cannot be judged (exit status 2). */
function chosen(
  options: TrafficOptions,
  bases: Map<string, Base>,
  seen: Map<string, number>,
  entries: number,
  redact: Redactor,
  apiPrefix: string,
): Base {
  const found = [...seen]
    .sort((a, b) => b[1] - a[1])
    .map(([base, n]) => `${base} (${n} ${n === 1 ? 'entry' : 'entries'})`);
  const withEntries = [...bases.values()].filter((b) => b.entries > 0 && seen.has(b.url));
  const [only] = withEntries;
  if (withEntries.length === 1 && only) return only;
  if (withEntries.length === 0) {
    const under = options.baseUrl ? `under ${options.baseUrl}${apiPrefix}/` : `under a …${apiPrefix}/ path`;
    const others = found.length > 0 ? `; it holds exchanges under ${found.slice(0, 5).join(', ')}` : '';
    throw new NotHarError(
      redact(
        `--traffic ${options.file} holds no exchange of this API ${under} (${entries} entries)${others}`,
      ),
    );
  }
  throw new NotHarError(
    redact(
      `--traffic ${options.file} holds exchanges of ${seen.size} API base URLs: ${found.slice(0, 5).join(', ')}${seen.size > 5 ? ', …' : ''}\nchoose one with --base-url`,
    ),
  );
}
