/** The walks (summary + detail) the detail and consistency checks judge: every listed walk, or the sample. */
import type { Stop, WalkDetail, WalkSummary } from '../../spec/types.ts';
import type { Exchange, Judged, Outcome } from '../types.ts';
import type { CheckContext } from './check.ts';
import { overCap } from '../types.ts';
import { describe, fail, inconclusive, noAnswer } from './outcome.ts';

export interface JudgedWalk {
  summary: WalkSummary;
  walk: WalkDetail;
  /** The stops when `stops` is an array (items unvalidated). */
  stops: Stop[] | undefined;
  exchange: Exchange;
}

/**
 * The sampled walks whose detail answered, or the outcome to return when there are none: a list
 * that gave nothing to sample from, or a campaign without walks, cannot show the rule.
 */
export async function judgedWalks(ctx: CheckContext, expected: string): Promise<JudgedWalk[] | Outcome> {
  const sampled = await ctx.data.sampledDetails();
  if (sampled.length === 0) {
    const view = await ctx.data.list200();
    // A list larger than --max-response-bytes is not judged: the run says so (exit 2).
    if (!view.walks && overCap(view.exchange.error)) return noAnswer(expected, view.exchange) as Outcome;
    return view.walks
      ? inconclusive(expected, 'the campaign lists no walk whose detail could be sampled', view.exchange)
      : fail(
          expected,
          `the list gave no walks to sample: ${describe(view.exchange.response)}`,
          view.exchange,
        );
  }
  const judged = sampled.flatMap(({ summary, view }) =>
    view.walk
      ? [
          {
            summary,
            walk: view.walk,
            stops: Array.isArray(view.walk.stops) ? view.walk.stops : undefined,
            exchange: view.exchange,
          },
        ]
      : [],
  );
  if (judged.length === 0) {
    const first = sampled[0]?.view.exchange;
    return inconclusive(expected, 'no sampled walk detail answered (see WALK-DETAIL-001)', first);
  }
  return judged;
}

export const walkLabel = (summary: WalkSummary) => `walk ${summary.id}`;

/** What a walk sweep judged: `records` walks by `requests` requests, of how many the list showed. */
export async function walkCoverage(ctx: CheckContext, records: number, requests = records): Promise<Judged> {
  const { of } = await ctx.data.primarySweep();
  return { requests, records, unit: 'walks', ...(records < of ? { of } : {}) };
}
