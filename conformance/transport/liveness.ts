/**
 * Whether the target is gone, told from evidence rather than from a streak alone. Requests that end
 * one after the other with no answer at all (`saysNothingAnswers`: refused, not found, timed out,
 * reset before any byte) make the client ask once more, with the smallest request the target
 * answered whole before: a gateway that resets every large answer still answers that one, and the
 * run goes on (the resets are the deployment's faults, ENVELOPE-016's to judge). Only when that
 * request gets no answer either, or when the target never answered anything, is the target gone:
 * every later request is not sent, and its message says what showed it. An answer that arrived cut
 * (status and headers, then no whole body) shows the target is there, once it has answered
 * something whole: a target that cuts every answer answers nothing.
 */
import type { NetworkFailure, ResponseData } from '../core/exchange.ts';
import { saysNothingAnswers } from './failures.ts';

/** Requests in a row with no answer at all before the client asks whether the target is still there. */
const GIVE_UP_AFTER = 3;

/** A request the target answered whole, kept to ask again: how it was sent, and how reports name it. */
export interface KnownRequest {
  method: string;
  /** Its URL, or an origin and a path sent as written. */
  target: string | { origin: string; path: string };
  headers: Record<string, string>;
  /** `GET <url>`, never a header. */
  line: string;
  bytes: number;
}

/** Sends a known request once, bounded as every attempt is; never throws. */
export type AskAgain = (known: KnownRequest) => Promise<ResponseData | NetworkFailure>;

export class TargetWatch {
  private noAnswerInARow = 0;
  private lastNoAnswer = '';
  private known: KnownRequest | undefined;
  private asking: Promise<void> | undefined;
  /** Why the target is taken to be gone, once it is: the message of every request not sent. */
  private goneBecause: string | undefined;

  /** An answer arrived whole: a small one is kept as the request to ask again. */
  answered(request: Omit<KnownRequest, 'bytes'>, response: ResponseData): void {
    if (!['GET', 'HEAD'].includes(request.method)) return;
    if (this.known && this.known.bytes <= response.bytes) return;
    this.known = { ...request, bytes: response.bytes };
  }

  /** How a request ended (its last attempt): the streak of requests with no answer at all. */
  settled(outcome: ResponseData | NetworkFailure): void {
    if (!('kind' in outcome)) {
      this.noAnswerInARow = 0;
    } else if (saysNothingAnswers(outcome) || (outcome.kind === 'cut' && !this.known)) {
      // A cut shows the target is there only once it has answered something whole.
      this.noAnswerInARow++;
      this.lastNoAnswer = outcome.message;
    } else if (outcome.kind !== 'budget' && outcome.kind !== 'gave-up' && outcome.kind !== 'past-deadline') {
      this.noAnswerInARow = 0;
    }
  }

  /** Why the target is gone, once that is known; undefined while it is not. */
  get gone(): string | undefined {
    return this.goneBecause;
  }

  /**
   * Before a request is sent: whether the target is gone. After a streak of requests with no
   * answer, asks the known request once (every request waiting meanwhile waits for that answer).
   */
  async goneBefore(ask: AskAgain): Promise<string | undefined> {
    if (this.goneBecause === undefined && this.noAnswerInARow >= GIVE_UP_AFTER) {
      this.asking ??= this.askAgain(ask).finally(() => (this.asking = undefined));
      await this.asking;
    }
    return this.goneBecause;
  }

  private async askAgain(ask: AskAgain): Promise<void> {
    const streak = `${this.noAnswerInARow} requests in a row got no whole answer; last: ${this.lastNoAnswer}`;
    if (!this.known) {
      this.goneBecause = `not sent: the target stopped answering (${streak}), and it had answered nothing whole before`;
      return;
    }
    const outcome = await ask(this.known);
    if (!('kind' in outcome)) {
      this.noAnswerInARow = 0;
      return;
    }
    this.goneBecause = `not sent: the target stopped answering (${streak}); ${this.known.line}, which it had answered, got no answer either: ${outcome.message}`;
  }
}
