/**
 * A live run's exchanges judged while the run waits on the network: each in the order it was
 * requested (`client.exchanges`), as soon as it and every exchange requested before it are
 * settled and their tags known, so the judging overlaps the requests still in flight instead of
 * following the last of them.
 *
 * Judging early must give exactly the verdict judging after the last answer gives. The one way it
 * could differ: an exchange that gains a planner after it was judged (a later request that the
 * client answers from the same exchange, a follow-up equal to a request already sent). The tags
 * each exchange was judged with are kept; when any differs from its final tags, `finish` judges
 * every exchange again, in order, with a judge of its own.
 */
import type { Exchange } from '../core/exchange.ts';
import type { Observation } from '../core/observation.ts';
import type { ProbeTags } from '../core/observe.ts';

/** What an exchange's tags come to, as text: two equal texts judge alike. */
function fingerprintOf(tags: ProbeTags): string {
  return JSON.stringify([[...(tags.plannedBy ?? [])].sort(), tags.private === true, tags.transform ?? null]);
}

export interface InOrderSource {
  /** Every attempt of the run, in the order requested. */
  readonly exchanges: readonly Exchange[];
  /** Whether an attempt is settled (answered, failed, or not sent). */
  settled(exchange: Exchange): boolean;
  /**
   * The exchange's tags once they are known; `undefined` while a planned request that will be
   * answered by it is still on its way.
   */
  tagsOf(exchange: Exchange): ProbeTags | undefined;
}

export class InOrderJudging {
  private next = 0;
  private readonly judgedWith = new Map<Exchange, string>();
  private readonly source: InOrderSource;
  private readonly see: (exchange: Exchange, tags: ProbeTags) => Observation | void;

  constructor(source: InOrderSource, see: (exchange: Exchange, tags: ProbeTags) => Observation | void) {
    this.source = source;
    this.see = see;
  }

  /** Judges every exchange now ready, in order; stops at the first that is not. */
  advance(): void {
    const { exchanges } = this.source;
    while (this.next < exchanges.length) {
      const exchange = exchanges[this.next] as Exchange;
      if (!this.source.settled(exchange)) return;
      const tags = this.source.tagsOf(exchange);
      if (tags === undefined) return;
      this.judgedWith.set(exchange, fingerprintOf(tags));
      this.see(exchange, tags);
      this.next++;
    }
  }

  /**
   * Judges what is left, once every request is settled and every tag final. True when every
   * exchange was judged with its final tags; false when the run must be judged again (in order,
   * by a fresh judge), because a tag came after its exchange was judged.
   */
  finish(finalTagsOf: (exchange: Exchange) => ProbeTags): boolean {
    const { exchanges } = this.source;
    for (; this.next < exchanges.length; this.next++) {
      const exchange = exchanges[this.next] as Exchange;
      const tags = finalTagsOf(exchange);
      this.judgedWith.set(exchange, fingerprintOf(tags));
      this.see(exchange, tags);
    }
    return exchanges.every(
      (exchange) => this.judgedWith.get(exchange) === fingerprintOf(finalTagsOf(exchange)),
    );
  }
}
