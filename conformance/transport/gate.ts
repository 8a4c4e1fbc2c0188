/**
 * The bound on requests in flight (`--concurrency`): a request takes a place before its first
 * attempt and gives it back when it ends, or while it waits to be asked again, so a wait never
 * holds a place others could use. Places are handed on in the order asked. undici's own bound (the
 * dispatcher's `connections`, the same number) queues a request inside the dispatch, where its
 * `--timeout` would already run and the pace would already have counted its start; and an answer
 * read off the socket (`raw-answer.ts`) does not go through undici at all. So the gate stands
 * before the pace, and undici's bound is only a ceiling it never reaches.
 */
export class Gate {
  private readonly waiting: (() => void)[] = [];
  private readonly places: number;
  private inFlight = 0;

  constructor(places: number) {
    this.places = places;
  }

  /** Resolves once a place is held. */
  enter(): Promise<void> {
    if (this.inFlight < this.places) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives a held place to the longest waiting, or frees it. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }
}
