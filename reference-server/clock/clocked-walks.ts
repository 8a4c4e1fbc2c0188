/**
 * The walks as they stand at the clock's instant: the repository of the data set after the events
 * that have happened so far, rebuilt only when another event has happened since it was built. Its
 * answers, ETags included, are those of any other repository of the same data.
 */
import type { CanvassingDay } from '../../fixtures/canvassing-day.ts';
import type { Dataset } from '../../fixtures/index.ts';
import type { CampaignWalks, WalkRepository, WalkSource } from '../repository.ts';
import type { SandboxClock } from './sandbox-clock.ts';

export class ClockedWalks implements WalkSource {
  private readonly day: CanvassingDay;
  private readonly clock: SandboxClock;
  private readonly repositoryOf: (dataset: Dataset) => WalkRepository;
  private built: { events: number; repository: WalkRepository } | undefined;

  constructor(day: CanvassingDay, clock: SandboxClock, repositoryOf: (dataset: Dataset) => WalkRepository) {
    this.day = day;
    this.clock = clock;
    this.repositoryOf = repositoryOf;
  }

  campaign(campaignId: string): CampaignWalks | undefined {
    return this.current().campaign(campaignId);
  }

  /** The repository of the current instant. */
  current(): WalkRepository {
    const events = this.day.eventsBy(this.clock.elapsed());
    if (this.built?.events !== events) {
      this.built = { events, repository: this.repositoryOf(this.day.afterEvents(events)) };
    }
    return this.built.repository;
  }
}
