/**
 * `--traffic FILE`: every recorded exchange of this API judged by the same rules, through the same
 * judge, as a live run's exchanges. Which exchanges are this API's: those under the base URL,
 * given or inferred from the file (the part of each URL before the API's prefix, `/api/v1`); a file
 * holding several such bases and no `--base-url` is ambiguous. The file is read once, as a stream;
 * each candidate base is judged as its entries go by.
 *
 * An entry that cannot be read is counted and named, never skipped in silence; a run that could
 * read fewer than 90 % of this API's entries cannot judge the recording (exit status 2).
 *
 * `--shard i/n` judges the entries of one shard of the file (`shards.ts`) and writes what it found,
 * the cross-exchange rules' state included, for `--merge`, which joins the shards' results and
 * gives the verdict judging the whole file gives.
 */
import { Keyring } from '../core/credentials.ts';
import { BudgetedState, paceCollector, UnknownTableError } from './budgeted-state.ts';
import { TOOL_NAME, VERSION } from '../core/tool.ts';
import { observe, type ObserveOptions } from '../core/observe.ts';
import type { Rule } from '../core/rule.ts';
import type { SpecModel } from '../core/spec-model.ts';
import type { Redactor } from '../core/redact.ts';
import {
  apiBaseOf,
  attachedFileOf,
  noteSecretsOf,
  readEntry,
  requestOf,
  type RawEntry,
} from '../transport/recordings/entry.ts';
import { NOT_JSON, NotHarError, parseEntry } from '../transport/recordings/har-entries.ts';
import { openRecording } from '../transport/recordings/source.ts';
import { withBodiesWithheld, withoutValues } from '../transport/recordings/withheld.ts';
import { SecretLedger, withoutSecretTokens } from '../transport/recordings/secrets.ts';
import type { KeyName } from '../core/roles.ts';
import type { SuiteConfig } from '../core/configuration.ts';
import type { Report } from '../core/report-model.ts';
import { Judge } from './judge.ts';
import { ruleContextOf } from './live.ts';
import { reportOf } from './report.ts';
import { findingsOf } from './results.ts';
import {
  type BaseCounts,
  type EntryIssue,
  MAX_NAMED,
  mismatchOf,
  readShardFile,
  type Shard,
  ShardError,
  type ShardFile,
  shardOwns,
  type ShardHead,
  type ShardSettings,
} from './shards.ts';
import type { Tally } from './tally.ts';

/** Candidate bases judged at once before the file is known to be ambiguous anyway. */
const MAX_BASES = 8;
/** What the cross-exchange state may cost the process, its collector's room included (`--traffic-memory`). */
export const DEFAULT_MEMORY_BYTES = 256 * 1024 * 1024;
/** The share of this API's entries a run must read to judge the recording. */
export const READABLE_SHARE = 0.9;

export interface TrafficOptions {
  /** A HAR, NDJSON, gzip or Playwright zip file; `-`: standard input (`input`). */
  file: string;
  /** Standard input, for `-` (default `process.stdin`). */
  input?: NodeJS.ReadableStream;
  /** What the cross-exchange state may cost the process, its collector's room included (`--traffic-memory`). */
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
  /** `--shard i/n`: judge only this shard's entries (`shards.ts`). */
  shard?: Shard;
}

/** A recording judged: its report, and every finding of each rule for the JSON report. */
export interface TrafficRun {
  report: Report;
  /** Every secret the file held, and anything key-shaped: every text written passes it. */
  redact: Redactor;
  /** Every finding of a rule, as the JSON report lists them (the report holds the first ones). */
  findings(ruleId: string): Iterable<string>;
  /** Removes the state the run spilled to disk; the findings cannot be read after. */
  close(): void;
}

/** A shard of a recording judged: what it read, and its part of the verdict to write for `--merge`. */
export interface ShardRun {
  head: ShardHead;
  /** The state of each candidate base, record by record. */
  states: readonly BudgetedState[];
  /** What the shard's result passes: each secret the recording holds by a token of its own. */
  redact: Redactor;
  close(): void;
}

/** Entries that could not be read, counted and the first ones named. */
export class Issues {
  count = 0;
  readonly named: EntryIssue[] = [];
  readonly reasons = new Map<string, number>();

  add(index: number, reason: string): void {
    this.count++;
    if (this.named.length < MAX_NAMED) this.named.push({ index, reason });
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  absorb(other: { count: number; named: EntryIssue[]; reasons: [string, number][] }): void {
    this.count += other.count;
    this.named.push(...other.named);
    this.named.sort((a, b) => a.index - b.index);
    this.named.splice(MAX_NAMED);
    for (const [reason, n] of other.reasons) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + n);
  }

  dump(): { count: number; named: EntryIssue[]; reasons: [string, number][] } {
    return { count: this.count, named: this.named, reasons: [...this.reasons] };
  }
}

/** One candidate API base: its judge, its state, and what its entries were. */
export class Base {
  /** Entries under this base. */
  entries = 0;
  readable = 0;
  /** Answers recorded without their bodies: judged on status and headers alone. */
  bodyless = 0;
  /** Entries under this base that could not be judged (no answer recorded, a body that does not decode). */
  readonly issues = new Issues();

  readonly url: string;
  readonly judge: Judge;
  readonly state: BudgetedState;

  constructor(url: string, judge: Judge, state: BudgetedState) {
    this.url = url;
    this.judge = judge;
    this.state = state;
  }

  counts(): BaseCounts {
    return {
      url: this.url,
      entries: this.entries,
      readable: this.readable,
      bodyless: this.bodyless,
      issues: this.issues.dump(),
    };
  }

  absorb(counts: BaseCounts): void {
    this.entries += counts.entries;
    this.readable += counts.readable;
    this.bodyless += counts.bodyless;
    this.issues.absorb(counts.issues);
  }
}

/** The settings a judge is made with, from the options of a run or of the shards merged. */
export interface JudgeSettings {
  strict: boolean;
  keys: Partial<Record<KeyName, string>>;
  webBaseUrl?: string;
  memoryBytes?: number;
}

/** The judging of a recording's bases: one judge and one state per candidate base. */
export class Bases {
  readonly byUrl = new Map<string, Base>();
  /** Entries under each API base URL found, whether judged or not. */
  readonly seen = new Map<string, number>();
  /** Entries that could not be read at all: which base they belonged to is unknown, so they count against each. */
  readonly unreadable = new Issues();
  entries = 0;

  private readonly spec: SpecModel;
  readonly rules: readonly Rule[];
  private readonly settings: JudgeSettings;
  private readonly only: string | undefined;

  constructor(spec: SpecModel, rules: readonly Rule[], settings: JudgeSettings, only?: string) {
    // The budget counts V8's room to collect in: its heap grows by half between collections, not fourfold.
    paceCollector();
    this.spec = spec;
    this.rules = rules;
    this.settings = settings;
    this.only = only;
  }

  /** The base of this URL, made on first use; undefined when it is not judged (another base, or too many). */
  of(url: string): Base | undefined {
    this.seen.set(url, (this.seen.get(url) ?? 0) + 1);
    return this.judged(url);
  }

  /** The base of this URL without counting an entry for it. */
  judged(url: string): Base | undefined {
    if (this.only !== undefined && url !== this.only) return undefined;
    let base = this.byUrl.get(url);
    if (!base) {
      if (this.byUrl.size >= MAX_BASES) return undefined;
      const state = new BudgetedState(this.settings.memoryBytes ?? DEFAULT_MEMORY_BYTES);
      const config = {
        strict: this.settings.strict,
        keys: this.settings.keys,
        ...(this.settings.webBaseUrl ? { webBaseUrl: this.settings.webBaseUrl } : {}),
      };
      base = new Base(
        url,
        new Judge(this.rules, ruleContextOf(this.spec, config as SuiteConfig, 'traffic', undefined, state)),
        state,
      );
      this.byUrl.set(url, base);
    }
    return base;
  }

  /** Spills state where a base's tables passed the budget. */
  async relieve(): Promise<void> {
    for (const base of this.byUrl.values()) await base.state.relieve();
  }

  close(): void {
    for (const base of this.byUrl.values()) base.state.close();
  }
}

/** The request headers the rules read; a recording's other headers are never shown. */
const keptHeadersOf = (rules: readonly Rule[]): ReadonlySet<string> =>
  new Set(rules.flatMap((rule) => rule.requestHeaders ?? []).map((h) => h.toLowerCase()));

/** How the exchanges under each base URL are observed, made once a base. */
function observeOptionsByBase(spec: SpecModel, keyring: Keyring): (url: string) => ObserveOptions {
  const observing = new Map<string, ObserveOptions>();
  return (url) => {
    let known = observing.get(url);
    if (!known) {
      known = { spec, keyring, basePath: new URL(url).pathname.replace(/\/+$/, ''), source: 'traffic' };
      observing.set(url, known);
    }
    return known;
  };
}

/** Reads the recording and judges its entries (a shard's only, with `--shard`) into `bases`. */
async function readRecording(spec: SpecModel, options: TrafficOptions, bases: Bases): Promise<SecretLedger> {
  const keyring = new Keyring({
    keys: options.keys,
    ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}),
  });
  const ledger = new SecretLedger();
  const keptHeaders = keptHeadersOf(bases.rules);
  const recording = await openRecording(options.file, options.input ?? process.stdin);
  const observeOptionsOf = observeOptionsByBase(spec, keyring);
  const { shard } = options;
  await recording.read(async (batch) => {
    for (const item of batch) {
      bases.entries++;
      const { index } = item;
      if ('unreadable' in item) {
        if (!shard || shardOwns(shard, index)) bases.unreadable.add(index, item.unreadable);
        continue;
      }
      const raw = parseEntry(item.bytes);
      if (raw === NOT_JSON) {
        if (!shard || shardOwns(shard, index)) bases.unreadable.add(index, 'not valid JSON');
        continue;
      }
      const request = requestOf(raw);
      const url = request ? apiBaseOf(request.url, spec.apiPrefix) : undefined;
      if (!request || url === undefined) continue;
      if (shard && !shardOwns(shard, index, spec, request, url)) {
        noteSecretsOf(raw as RawEntry, request, ledger);
        continue;
      }
      const base = bases.of(url);
      if (!base) continue;
      base.entries++;
      const file = attachedFileOf(raw as RawEntry);
      const attached = file === undefined ? undefined : await recording.bodies(file);
      if (attached && !Buffer.isBuffer(attached)) {
        base.issues.add(index, attached.missing);
        continue;
      }
      const reading = readEntry(raw as RawEntry, index, request, ledger, keyring, attached, keptHeaders);
      if (!reading.judged) {
        base.issues.add(index, reading.reason);
        continue;
      }
      base.readable++;
      if (reading.bodyless) base.bodyless++;
      base.judge.see(observe(reading.exchange, observeOptionsOf(url), {}, reading.bodyless));
    }
    await bases.relieve();
  });
  return ledger;
}

/** Judges a recording whole: its report, once every exchange is seen. */
export async function judgeRecording(
  spec: SpecModel,
  options: TrafficOptions,
  rules: readonly Rule[],
): Promise<TrafficRun> {
  const started = performance.now();
  const startedAt = new Date();
  const bases = new Bases(spec, rules, options, options.baseUrl);
  try {
    const ledger = await readRecording(spec, options, bases);
    return await verdictOf(spec, rules, bases, {
      file: options.file,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      strict: options.strict,
      seed: options.seed,
      redactBodies: options.redactBodies === true,
      redact: ledger.redactor(),
      started,
      startedAt,
    });
  } catch (error) {
    bases.close();
    throw error;
  }
}

/** Judges one shard of a recording: what its entries showed, to be merged with the other shards'. */
export async function judgeRecordingShard(
  spec: SpecModel,
  options: TrafficOptions & { shard: Shard },
  rules: readonly Rule[],
): Promise<ShardRun> {
  const bases = new Bases(spec, rules, options, options.baseUrl);
  try {
    const ledger = await readRecording(spec, options, bases);
    const judged = [...bases.byUrl.values()];
    const settings: ShardSettings = {
      keys: new Keyring({
        keys: options.keys,
        ...(spec.keyPrefix ? { keyPrefix: spec.keyPrefix } : {}),
      }).configuredIds(),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.webBaseUrl ? { webBaseUrl: options.webBaseUrl } : {}),
    };
    const head: ShardHead = {
      suite: { name: TOOL_NAME, version: VERSION },
      spec: spec.identity,
      shard: options.shard,
      rules: rules.map((r) => r.id),
      settings,
      recording: { file: options.file, entries: bases.entries },
      seen: [...bases.seen],
      unreadable: bases.unreadable.dump(),
      bases: judged.map((base) => ({ ...base.counts(), judge: base.judge.dump() })),
    };
    return {
      head,
      states: judged.map((b) => b.state),
      redact: ledger.tokenizer(),
      close: () => bases.close(),
    };
  } catch (error) {
    bases.close();
    throw error;
  }
}

export interface MergeOptions {
  /** The shards' result files (`--merge`). */
  files: readonly string[];
  memoryBytes?: number;
  redactBodies?: boolean;
  strict: boolean;
  seed: number;
}

/** State records joined between two chances to spill. */
const RELIEVE_EVERY = 10_000;

/**
 * `--merge`: the shards' results joined into the verdict judging the whole recording gives. Shards
 * of another spec, other rules, other settings or another recording, a shard missing or given
 * twice, and a file that is no shard's result cannot be merged (exit status 2, saying why).
 */
export async function mergeTraffic(
  spec: SpecModel,
  options: MergeOptions,
  rules: readonly Rule[],
): Promise<TrafficRun> {
  const started = performance.now();
  const startedAt = new Date();
  const files: ShardFile[] = [];
  for (const path of options.files) files.push(await readShardFile(path));
  const mismatch = mismatchOf(
    files,
    spec.identity,
    rules.map((r) => r.id),
  );
  if (mismatch) throw new ShardError(`--merge: ${mismatch}`);
  const { head: first } = files[0] as ShardFile;
  const { settings } = first;
  const bases = new Bases(
    spec,
    rules,
    {
      strict: options.strict,
      keys: {},
      ...(settings.webBaseUrl ? { webBaseUrl: settings.webBaseUrl } : {}),
      ...(options.memoryBytes ? { memoryBytes: options.memoryBytes } : {}),
    },
    settings.baseUrl,
  );
  try {
    bases.entries = first.recording.entries;
    for (const file of files) await absorbShard(bases, file);
    return await verdictOf(spec, rules, bases, {
      file: first.recording.file,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
      strict: options.strict,
      seed: options.seed,
      redactBodies: options.redactBodies === true,
      redact: (text) => withoutSecretTokens(keyShapedOut(text)),
      started,
      startedAt,
    });
  } catch (error) {
    bases.close();
    throw error;
  }
}

/** What redacts anything key-shaped: a ledger that noted nothing. */
const keyShapedOut = new SecretLedger().redactor();

/** Joins one shard's counts and state into the bases of the merged run. */
async function absorbShard(bases: Bases, file: ShardFile): Promise<void> {
  const { head } = file;
  for (const [url, n] of head.seen) bases.seen.set(url, (bases.seen.get(url) ?? 0) + n);
  bases.unreadable.absorb(head.unreadable);
  const judged = head.bases.map(({ judge, ...counts }) => {
    const base = bases.judged(counts.url);
    base?.absorb(counts);
    base?.judge.absorb(judge);
    return base;
  });
  let n = 0;
  for await (const { base: at, record } of file.records()) {
    const base = judged[at];
    if (!base) continue;
    try {
      base.state.absorb(record);
    } catch (error) {
      if (!(error instanceof UnknownTableError)) throw error;
      throw new ShardError(
        `--merge ${file.path}: ${error.message}; merge with the rules the shards ran with`,
      );
    }
    if (++n % RELIEVE_EVERY === 0) await bases.relieve();
  }
  await bases.relieve();
}

/** What the verdict of a recording is drawn with, beside its bases. */
export interface VerdictInput {
  file: string;
  baseUrl?: string;
  strict: boolean;
  seed: number;
  redactBodies: boolean;
  redact: Redactor;
  started: number;
  startedAt: Date;
}

/** The verdict on a recording whose entries are all seen (read whole, or merged from its shards). */
export async function verdictOf(
  spec: SpecModel,
  rules: readonly Rule[],
  bases: Bases,
  input: VerdictInput,
): Promise<TrafficRun> {
  const base = chosen(input, bases, input.redact, spec.apiPrefix);
  const tallies = await base.judge.finish(() => base.state.relieve());
  const report = reportOf({
    spec,
    source: 'traffic',
    strict: input.strict,
    seed: input.seed,
    tallies,
    judge: base.judge,
    skipped: [],
    order: rules.map((r) => r.id),
    exchanges: [],
    baseUrl: base.url,
    startedAt: input.startedAt,
    durationMs: Math.round(performance.now() - input.started),
    requests: { sent: 0, budget: 0, memoized: 0 },
    target: { baseUrl: base.url, profile: 'live', strict: input.strict, embedded: false },
  });
  readingCoverage(report, bases, base, input.file);
  const byId = new Map<string, Tally>(tallies.map((t) => [t.rule.id, t]));
  return {
    report: input.redactBodies ? withBodiesWithheld(report) : report,
    redact: input.redact,
    *findings(ruleId) {
      const tally = byId.get(ruleId);
      if (!tally) return;
      for (const finding of findingsOf(tally)) yield input.redactBodies ? withoutValues(finding) : finding;
    },
    close: () => bases.close(),
  };
}

/**
 * What the report says of the recording's entries: how many, how many of this API and judged, and
 * which could not be; a recording with fewer than 90 % of this API's entries read is not judged.
 */
function readingCoverage(report: Report, bases: Bases, base: Base, file: string): void {
  const issues = new Issues();
  issues.absorb(bases.unreadable.dump());
  issues.absorb(base.issues.dump());
  const entries = base.entries + bases.unreadable.count;
  const coverage = report.coverage;
  if (coverage) {
    coverage.traffic = {
      file,
      entries: bases.entries,
      ofApi: entries,
      judged: base.readable,
      notJudged: [...issues.reasons].map(([reason, n]) => ({ reason, entries: n })),
    };
    if (base.bodyless > 0) coverage.traffic.bodyless = base.bodyless;
    if (issues.named.length > 0) {
      coverage.traffic.unreadable = issues.named.map(({ index: at, reason }) => `entry #${at}: ${reason}`);
      if (issues.count > issues.named.length) {
        coverage.traffic.unreadable.push(`… and ${issues.count - issues.named.length} more`);
      }
    }
  }
  if (entries > 0 && base.readable < READABLE_SHARE * entries) {
    const reasons = [...issues.reasons].map(([reason, n]) => `${n} ${reason}`);
    report.unreachable = `--traffic ${file}: read ${base.readable} of ${entries} exchanges of this API (${Math.round((100 * base.readable) / entries)}%, fewer than ${READABLE_SHARE * 100}%): ${reasons.join(', ')}`;
    report.summary.verdict = 'not judged';
  }
}

/** The one base judged, or why the file cannot be judged (exit status 2). */
function chosen(
  input: Pick<VerdictInput, 'file' | 'baseUrl'>,
  bases: Bases,
  redact: Redactor,
  apiPrefix: string,
): Base {
  const seen = bases.seen;
  const found = [...seen]
    .sort((a, b) => b[1] - a[1])
    .map(([base, n]) => `${base} (${n} ${n === 1 ? 'entry' : 'entries'})`);
  const withEntries = [...bases.byUrl.values()].filter((b) => b.entries > 0 && seen.has(b.url));
  const [only] = withEntries;
  if (withEntries.length === 1 && only) return only;
  if (withEntries.length === 0) {
    const under = input.baseUrl ? `under ${input.baseUrl}${apiPrefix}/` : `under a …${apiPrefix}/ path`;
    const others = found.length > 0 ? `; it holds exchanges under ${found.slice(0, 5).join(', ')}` : '';
    throw new NotHarError(
      redact(
        `--traffic ${input.file} holds no exchange of this API ${under} (${bases.entries} entries)${others}`,
      ),
    );
  }
  throw new NotHarError(
    redact(
      `--traffic ${input.file} holds exchanges of ${seen.size} API base URLs: ${found.slice(0, 5).join(', ')}${seen.size > 5 ? ', …' : ''}\nchoose one with --base-url`,
    ),
  );
}
