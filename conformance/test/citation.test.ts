/**
 * A finding's citation leads into the repository: the OpenAPI operation its evidence answered (by
 * method and path template, behind any gateway prefix), the decision id it reports on, and the
 * written spec's section as a label only.
 */
import { describe, expect, it } from 'vitest';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { citationOf } from '../reporters/sections.ts';

const operations = [
  { operationId: 'listWalks', method: 'get', path: '/api/v1/walks' },
  { operationId: 'getWalk', method: 'get', path: '/api/v1/walks/{id}' },
];
const report = { spec: { path: LIVE_SPEC_PATH, version: '1', sha256: '' }, coverage: { operations } };
const request = (method: string, url: string) => ({
  method,
  url,
  keys: [],
  headers: {},
  curl: '',
});

describe('citationOf', () => {
  it('names the operation and the decision, the section last as a label', () => {
    const result = {
      section: '§4.3',
      decision: 'D-PAGINATION',
      request: request('GET', 'https://s.example/api/v1/walks?limit=2'),
    };
    expect(citationOf(result, report)).toBe(
      'listWalks (GET /api/v1/walks) in spec/openapi.yaml; D-PAGINATION in spec/DECISIONS.md; written spec §4.3',
    );
  });

  it('matches a template behind a gateway prefix, and names the spec a run was given', () => {
    const result = { section: '§4.3', request: request('GET', 'https://s.example/gw/api/v1/walks/w%2F1') };
    expect(citationOf(result, { ...report, spec: { ...report.spec, path: 'next.yaml' } })).toBe(
      'getWalk (GET /api/v1/walks/{id}) in next.yaml; written spec §4.3',
    );
  });

  it('names no operation for a request the spec does not document', () => {
    const result = {
      section: '§4.4',
      decision: 'D-PLANNED',
      request: request('GET', 'https://s.example/api/v1/lists'),
    };
    expect(citationOf(result, report)).toBe('D-PLANNED in spec/DECISIONS.md; written spec §4.4');
  });
});
