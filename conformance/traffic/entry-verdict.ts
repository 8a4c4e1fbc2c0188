/**
 * One HAR entry, from its bytes to its verdict: parsed, placed under its API base URL, read as an
 * exchange (its secrets noted) and judged on its own. The same code runs on the main thread and
 * on the worker threads (`judge-pool.ts`); what it returns is plain data, merged in file order by
 * `run.ts`, so which thread judged an entry never shows in the report.
 */
import { contractsFor } from '../runner.ts';
import { apiBaseOf, readEntry, requestOf, type RawEntry } from './entry.ts';
import { ExchangeJudge, type ExchangeVerdict } from './exchange-judge.ts';
import { NOT_JSON, parseEntry } from './har-entries.ts';
import type { Answered } from './rules.ts';
import { EntrySecrets } from './secrets.ts';

/** What one entry of the file is. */
export interface EntryVerdict {
  /** Its place in the file, from 1. */
  index: number;
  /** Its bytes are not JSON: the file is not HAR. */
  notJson?: true;
  /** Judging it threw (a defect of this tool): the message, thrown again where it is merged. */
  failed?: string;
  /** The API base URL its request went to; undefined for an entry that is not this API's. */
  base?: string;
  /** The secrets it holds, in the order they were met (when it was read). */
  secrets?: string[];
  /** Read, but not judged: why. */
  notJudged?: string;
  verdict?: ExchangeVerdict;
}

/** How the entries of one run are judged: plain data, to hand to a worker. */
export interface EntryJudgeOptions {
  /** Normalized; when undefined, every API base URL met is judged. */
  baseUrl?: string;
  strict: boolean;
  /** The rule ids to judge; every rule when undefined. */
  selected?: readonly string[];
  specPath?: string;
}

/** Judges entries, keeping one `ExchangeJudge` per API base URL met. */
export class EntryJudges {
  private readonly judges = new Map<string, ExchangeJudge>();
  private readonly selected: ReadonlySet<string> | undefined;

  private readonly options: EntryJudgeOptions;

  constructor(options: EntryJudgeOptions) {
    this.options = options;
    this.selected = options.selected ? new Set(options.selected) : undefined;
  }

  /** The verdicts of consecutive entries, the first of them numbered `first`. */
  async judgeAll(entries: readonly Uint8Array[], first: number): Promise<EntryVerdict[]> {
    const verdicts: EntryVerdict[] = [];
    for (const [i, bytes] of entries.entries()) verdicts.push(await this.judgeOne(bytes, first + i));
    return verdicts;
  }

  private async judgeOne(bytes: Uint8Array, index: number): Promise<EntryVerdict> {
    try {
      return await this.judge(bytes, index);
    } catch (error) {
      return { index, failed: (error as Error).message };
    }
  }

  private async judge(bytes: Uint8Array, index: number): Promise<EntryVerdict> {
    const raw = parseEntry(bytes);
    if (raw === NOT_JSON) return { index, notJson: true };
    const request = requestOf(raw);
    const base = request ? apiBaseOf(request.url) : undefined;
    if (!request || base === undefined) return { index };
    if (this.options.baseUrl !== undefined && base !== this.options.baseUrl) return { index, base };
    const secrets = new EntrySecrets();
    const reading = readEntry(raw as RawEntry, index, request, secrets);
    if (!reading.judged) return { index, base, secrets: secrets.values, notJudged: reading.reason };
    const verdict = await this.judgeOf(base).judge(reading.exchange as Answered, reading.identity);
    return { index, base, secrets: secrets.values, verdict };
  }

  /** The judge of a base; a file of more bases than are worth keeping gets a fresh one each time. */
  private judgeOf(base: string): ExchangeJudge {
    const known = this.judges.get(base);
    if (known) return known;
    const { open, closed } = contractsFor(this.options.specPath);
    const judge = new ExchangeJudge({
      baseUrl: base,
      strict: this.options.strict,
      ...(this.selected ? { selected: this.selected } : {}),
      contract: open,
      closedContract: closed,
    });
    if (this.judges.size < MAX_KEPT_JUDGES) this.judges.set(base, judge);
    return judge;
  }
}

/**
 * Judges kept per thread. A file with more API bases than `run.ts` judges (it is ambiguous, or
 * `--base-url` names one) has its other entries judged for nothing; their judges need not stay.
 */
const MAX_KEPT_JUDGES = 16;

/**
 * Puts back the walks of a list answer sent as `sameAsLast` (`ExchangeJudge.listFacts`): those of
 * the last list of the same API base judged on the same thread, whose verdicts come in file order.
 */
export class RepeatedLists {
  private readonly last = new Map<string, { ids: string[]; summaries: string[] }>();

  /** The verdict of `thread` (a worker, or the main thread) with its list's walks in place. */
  resolve(thread: string, entry: EntryVerdict): EntryVerdict {
    const list = entry.verdict?.cross?.list;
    if (!list) return entry;
    const key = `${thread} ${entry.base ?? ''}`;
    if (!list.sameAsLast) {
      this.last.set(key, list);
      return entry;
    }
    const last = this.last.get(key);
    if (!last) throw new Error(`entry ${entry.index}: a list answer repeats one never seen`);
    list.ids = last.ids;
    list.summaries = last.summaries;
    delete list.sameAsLast;
    return entry;
  }
}
