/** `--web-base-url` takes only bases whose links the spec's web_url/app_link patterns admit. */
import { describe, expect, it } from 'vitest';
import { createContractValidator } from '../../spec/contract.ts';
import { normalizeWebBaseUrl, WEB_BASE_MAX_PATH_SEGMENTS } from '../web-base-url.ts';

const validator = createContractValidator();
const segments = (n: number) => Array.from({ length: n }, (_, i) => `/p${i}`).join('');

function linksValid(base: string): boolean {
  const summary = {
    id: '93bfb174-4e7a-4a37-9c9d-b45ef12d5123',
    name: 'x',
    lat: null,
    lng: null,
    count: 0,
    counts: { not_visited: 0, visited_home_answered: 0, visited_no_answer: 0, visited_left_lit: 0 },
    web_url: `${base}/dashboard/s/walks/w`,
    app_link: `${base}/open/s/walks/w`,
  };
  const errors = validator.validateSchema('WalkSummary', summary).errors;
  return !errors.some((e) => e.includes('web_url') || e.includes('app_link'));
}

describe('normalizeWebBaseUrl', () => {
  it.each([
    'https://dashboard.example',
    'http://127.0.0.1:3000/',
    `https://x.example:8443${segments(WEB_BASE_MAX_PATH_SEGMENTS)}`,
    'https://user:pw@x.example/a%20b',
  ])('takes %s, and the links built on it match the spec', (value) => {
    expect(linksValid(normalizeWebBaseUrl(value))).toBe(true);
  });

  it.each([
    ['http://[::1]:3000', /IPv6 literal/],
    [`https://x.example${segments(WEB_BASE_MAX_PATH_SEGMENTS + 1)}`, /at most 8 path segments, not 9/],
    ['https://x.example/?q=1', /without query or fragment/],
  ])('refuses %s with a plain message', (value, message) => {
    expect(() => normalizeWebBaseUrl(value)).toThrow(message);
  });

  it('refuses exactly the bases whose links the spec would refuse', () => {
    for (const value of ['http://[::1]:3000', `https://x.example${segments(9)}`]) {
      expect(linksValid(value)).toBe(false);
    }
  });
});
