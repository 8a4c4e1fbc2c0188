/**
 * Every answer body and its ETag are built when the data set is loaded, so a request only looks one
 * up: the list for each limit 1..200 and each walk's detail. The incremental build of the lists
 * must give exactly the bytes and tags a plain build gives.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type CampaignWalks, MAX_LIMIT, WalkRepository, walkSummary } from '../repository.ts';
import { DEFAULT_WEB_BASE_URL } from '../web-base-url.ts';
import { activeWalksOf, datasetFor } from './harness.ts';

const dataset = datasetFor();
const repository = new WalkRepository(dataset, DEFAULT_WEB_BASE_URL);

function viewOf(repo: WalkRepository, campaignIndex: number): CampaignWalks {
  const view = repo.campaign(dataset.campaigns[campaignIndex]?.id ?? '');
  if (!view) throw new Error(`no view of campaign ${campaignIndex}`);
  return view;
}

/** D-ORDER: newest first, ties by id ascending. */
const listedWalksOf = (campaignIndex: number) =>
  activeWalksOf(dataset, campaignIndex).sort((a, b) =>
    a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? -1 : 1,
  );

const sha256Tag = (bytes: Buffer) =>
  `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;

describe('list bodies', () => {
  it('are built once for every limit, with the bytes and SHA-256 tag of a plain build', () => {
    for (const [index, campaign] of dataset.campaigns.entries()) {
      const view = viewOf(repository, index);
      const summaries = listedWalksOf(index).map((walk) =>
        JSON.stringify(walkSummary(walk, campaign, DEFAULT_WEB_BASE_URL)),
      );
      for (let limit = 1; limit <= MAX_LIMIT; limit++) {
        const body = view.list(limit);
        const listed = summaries.slice(0, limit);
        const plain = `{"ok":true,"data":[${listed.join(',')}],"meta":{"count":${listed.length}}}`;
        expect([campaign.slug, limit, body.bytes.toString('utf8')]).toEqual([campaign.slug, limit, plain]);
        expect(body.etag).toBe(sha256Tag(body.bytes));
        expect(view.list(limit)).toBe(body); // the same object: nothing rebuilt per request
      }
    }
  });

  it('give each limit its own tag while the campaign has more walks', () => {
    const view = viewOf(repository, 0);
    const tags = new Set(Array.from({ length: MAX_LIMIT }, (_, i) => view.list(i + 1).etag));
    expect(tags.size).toBe(Math.min(MAX_LIMIT, activeWalksOf(dataset, 0).length));
  });

  it('keep their tags across restarts on the same data set', () => {
    const again = viewOf(new WalkRepository(datasetFor(), DEFAULT_WEB_BASE_URL), 0);
    for (const limit of [1, 50, MAX_LIMIT])
      expect(again.list(limit).etag).toBe(viewOf(repository, 0).list(limit).etag);
  });
});

describe('detail bodies', () => {
  it('are all built at load for a demo-sized data set', () => {
    expect(repository.detailsAtLoad).toBe(true);
    const view = viewOf(repository, 0);
    for (const walk of activeWalksOf(dataset, 0)) {
      const body = view.walk(walk.id);
      expect(body?.etag).toBe(sha256Tag(body?.bytes ?? Buffer.alloc(0)));
      expect(view.walk(walk.id.toUpperCase())).toBe(body);
    }
  });

  it('are built on first use, once, with the same bytes and tags, above the load-time budget', () => {
    const lazy = new WalkRepository(dataset, DEFAULT_WEB_BASE_URL, { eagerDetailStops: 0 });
    expect(lazy.detailsAtLoad).toBe(false);
    const eagerView = viewOf(repository, 0);
    const lazyView = viewOf(lazy, 0);
    for (const walk of activeWalksOf(dataset, 0).slice(0, 20)) {
      const body = lazyView.walk(walk.id);
      expect(body?.bytes.equals(eagerView.walk(walk.id)?.bytes ?? Buffer.alloc(0))).toBe(true);
      expect(body?.etag).toBe(eagerView.walk(walk.id)?.etag);
      expect(lazyView.walk(walk.id)).toBe(body);
    }
  });
});
