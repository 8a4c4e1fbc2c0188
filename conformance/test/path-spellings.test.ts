/**
 * Other spellings of the live paths (AUTH-016, and AUTH-015 where no entry of the catalogue names
 * them), from the spec under test: each live operation's path spelled the seven ways D-PATH-UNKNOWN
 * decides, and every such spelling, met in any exchange, told back to the operation it reaches,
 * while a documented path or an unknown one is no spelling.
 */
import { describe, expect, it } from 'vitest';
import type { Observation } from '../core/observation.ts';
import { hasDotSegment } from '../core/dot-segments.ts';
import { specModelFor } from '../run/runner.ts';
import { spellingOf, spellingsOf } from '../rules/path-spellings.ts';

const spec = specModelFor();
const list = spec.operation('listWalks');
const detail = spec.operation('getWalk');

/** What the rules see of a GET to `path` (below the base URL) that matched no operation. */
function asked(path: string, method = 'GET'): Observation {
  const url = `http://api.test${path}`;
  const parsed = new URL(url).pathname;
  const matched = hasDotSegment(path) ? undefined : spec.match(method, path);
  return {
    exchange: {
      seq: 1,
      request: { method, url, keys: [], headers: {}, curl: '' },
      durationMs: 0,
      retries: 0,
    },
    ...(matched ? { op: matched.op } : {}),
    params: {},
    query: new URLSearchParams(),
    path: parsed,
    target: path,
    credential: { kind: 'none' },
    answer: 'usable',
    bodyless: false,
    inApi: true,
    source: 'traffic',
  } as Observation;
}

describe('the spellings of a live path', () => {
  it('spell the collection segment of an item path, and put dot segments before its last segment', () => {
    expect(spellingsOf(detail, '/api/v1/walks/abc').map((s) => s.path)).toEqual([
      '/api/v1/walks/abc/',
      '/api/v1/WALKS/abc',
      '/api/v1//walks/abc',
      '/api/v1/%77alks/abc',
      '/api/v1/walks/./abc',
      '/api/v1/walks/x/../abc',
      '/api/v1/walks/x/%2e%2e/abc',
    ]);
  });

  it('are each told back to the operation they reach', () => {
    for (const op of [list, detail]) {
      const path = op === detail ? '/api/v1/walks/abc' : op.path;
      for (const spelling of spellingsOf(op, path)) {
        expect(spellingOf(spec, asked(spelling.path))?.op.operationId, spelling.path).toBe(op.operationId);
      }
    }
  });

  it('are never the documented path, an unknown path, or another method', () => {
    expect(spellingOf(spec, asked('/api/v1/walks'))).toBeUndefined();
    expect(spellingOf(spec, asked('/api/v1/nothing/'))).toBeUndefined();
    expect(spellingOf(spec, asked('/api/v1/walks/abc/stops'))).toBeUndefined();
    expect(spellingOf(spec, asked('/api/v1/WALKS', 'POST'))).toBeUndefined();
  });
});
