/**
 * The `web_url` and `app_link` patterns: the spec's bounded-class patterns, read with
 * `format: uri` by the project's own Ajv, admit exactly what the original negated-class patterns
 * admitted, except the shapes D-LINK-PATTERNS narrows away: an authority RFC 3986 refuses or
 * without a host name (empty, which RFC 9110 forbids in http URIs, or an IP literal), and more than
 * eight path-prefix segments. Both sides run through createContractValidator, so the uri format
 * is the one the suite and the reference server apply.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContractValidator, loadSpec, type OpenApiDocument, stopStatusesOf } from '../contract.ts';

type LinkField = 'web_url' | 'app_link';
const WORD: Record<LinkField, string> = { web_url: 'dashboard', app_link: 'open' };
/** The looser patterns the spec once had: any non-?# prefix, then the two non-empty segments. */
const ORIGINAL: Record<LinkField, string> = {
  web_url: '^https?://[^?#]*/dashboard/[^/?#]+/walks/[^/?#]+$',
  app_link: '^https?://[^?#]*/open/[^/?#]+/walks/[^/?#]+$',
};
const PREFIX_SEGMENTS_BOUND = 8;

type Properties = Record<LinkField, { pattern: string }>;

function linkProperties(doc: OpenApiDocument): Properties {
  return doc.components?.schemas?.WalkSummary?.properties as unknown as Properties;
}

function withOriginalPatterns(): OpenApiDocument {
  const doc = loadSpec();
  const props = linkProperties(doc);
  props.web_url.pattern = ORIGINAL.web_url;
  props.app_link.pattern = ORIGINAL.app_link;
  return doc;
}

const current = createContractValidator();
const original = createContractValidator(withOriginalPatterns());
const VALID_SUMMARY = {
  id: '93bfb174-4e7a-4a37-9c9d-b45ef12d5123',
  name: 'x',
  lat: null,
  lng: null,
  count: 0,
  counts: Object.fromEntries(stopStatusesOf(loadSpec()).map((status) => [status, 0])),
  web_url: 'https://a.example/dashboard/s/walks/w',
  app_link: 'https://a.example/open/s/walks/w',
};

function admits(validator: typeof current, field: LinkField, value: string): boolean {
  return validator.validateSchema('WalkSummary', { ...VALID_SUMMARY, [field]: value }).valid;
}

/**
 * Whether an authority is one RFC 3986 admits with a named host: one userinfo at most, a non-empty
 * host that is no IP literal, a port of digits. Ajv's uri format is laxer (it reads
 * `https://a@b@c/…` as an empty authority and a path), which is why the original admitted these.
 */
function namedHostAuthority(authority: string): boolean {
  const at = authority.split('@');
  const hostAndPort = at[at.length - 1] ?? '';
  const colon = hostAndPort.indexOf(':');
  const hostName = colon < 0 ? hostAndPort : hostAndPort.slice(0, colon);
  const port = colon < 0 ? '' : hostAndPort.slice(colon + 1);
  return at.length <= 2 && hostName !== '' && !hostName.startsWith('[') && /^[0-9]*$/.test(port);
}

/** The shapes the bounded pattern leaves out on purpose, judged on a link the original admits. */
function narrowedAway(field: LinkField, link: string): boolean {
  const rest = link.replace(/^https?:\/\//, '');
  const slash = rest.indexOf('/');
  const path = rest.slice(slash);
  const prefix = path.slice(0, path.lastIndexOf(`/${WORD[field]}/`));
  const segments = prefix.split('/').length - 1;
  return !namedHostAuthority(rest.slice(0, slash)) || segments > PREFIX_SEGMENTS_BOUND;
}

const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
const pct = fc.tuple(hex, hex).map(([a, b]) => `%${a}${b}`);
const chars = (set: string) => fc.constantFrom(...set);
const UNRESERVED_SUB = "ABCXYZabcdxyz0189._~!$&'()*+,;=-";
/** Characters a near miss may slip in: the ones the uri format or the patterns refuse. */
const STRAY = ['?', '#', '/', '%', '%zz', ' ', 'é', '[', ']', '@', ':', '//', '\\'];
const piece = (set: string) => fc.oneof({ weight: 4, arbitrary: chars(set) }, { weight: 1, arbitrary: pct });
const run = (set: string, minLength: number) =>
  fc.array(piece(set), { minLength, maxLength: 8 }).map((p) => p.join(''));

const host = fc.oneof(
  { weight: 8, arbitrary: run(UNRESERVED_SUB, 1) },
  { weight: 1, arbitrary: fc.constantFrom('[::1]', '[2001:db8::7]', '127.0.0.1', '') },
);

function linkArbitrary(field: LinkField): fc.Arbitrary<string> {
  return fc
    .record({
      scheme: fc.constantFrom('http', 'https', 'HTTPS', 'ftp'),
      userinfo: fc.option(run(`${UNRESERVED_SUB}:`, 0), { freq: 4 }),
      host,
      port: fc.option(fc.stringMatching(/^[0-9]{0,5}$/), { freq: 2 }),
      prefix: fc.array(run(`${UNRESERVED_SUB}:@`, 0), { maxLength: PREFIX_SEGMENTS_BOUND + 3 }),
      word: fc.constantFrom(WORD[field], WORD[field], 'walks', 'Dashboard'),
      slug: run(`${UNRESERVED_SUB}:@`, 0),
      id: run(`${UNRESERVED_SUB}:@`, 0),
      stray: fc.option(fc.tuple(fc.constantFrom(...STRAY), fc.nat()), { freq: 3 }),
    })
    .map((p) => {
      const authority = `${p.userinfo === null ? '' : `${p.userinfo}@`}${p.host}${p.port === null ? '' : `:${p.port}`}`;
      const prefix = p.prefix.map((s) => `/${s}`).join('');
      const link = `${p.scheme}://${authority}${prefix}/${p.word}/${p.slug}/walks/${p.id}`;
      if (p.stray === null) return link;
      const at = p.stray[1] % (link.length + 1);
      return link.slice(0, at) + p.stray[0] + link.slice(at);
    });
}

describe.each(['web_url', 'app_link'] as const)('the %s pattern with format uri', (field) => {
  it('admits what the original pattern admitted, less only the narrowed shapes', () => {
    fc.assert(
      fc.property(linkArbitrary(field), (link) => {
        const before = admits(original, field, link);
        expect(admits(current, field, link)).toBe(before && !narrowedAway(field, link));
      }),
      { numRuns: 4_000 },
    );
  });

  it('is exercised on both sides: links admitted, refused and narrowed all occur', () => {
    const samples = fc.sample(linkArbitrary(field), { numRuns: 2_000, seed: 26 });
    const verdicts = samples.map((l) => [admits(original, field, l), admits(current, field, l)]);
    expect(verdicts.filter(([b, a]) => b && a).length).toBeGreaterThan(100);
    expect(verdicts.filter(([b]) => !b).length).toBeGreaterThan(100);
    expect(verdicts.filter(([b, a]) => b && !a).length).toBeGreaterThan(0);
  });

  const w = WORD[field];
  it.each([
    [`https://x.example/${w}/s/walks/w`, true],
    [`https://u:p%41@x.example:8443/base/path/${w}/rivera-for-council/walks/93bf`, true],
    [`https://x.example/a%2Fb/${w}/s%20t/walks/w`, true],
    [`https://x.example//${w}/s/walks/w`, true],
    [`https://x.example/1/2/3/4/5/6/7/8/${w}/s/walks/w`, true],
    [`https://x.example/1/2/3/4/5/6/7/8/9/${w}/s/walks/w`, false],
    [`https://[::1]/${w}/s/walks/w`, false],
    [`https:///${w}/s/walks/w`, false],
    [`https://:8080/${w}/s/walks/w`, false],
    [`https://a@b@c/${w}/s/walks/w`, false],
    [`https://x.example:80a/${w}/s/walks/w`, false],
    [`https://x.example/${w}/s/walks/w?x=1`, false],
    [`https://x.example/${w}/s/walks/w#top`, false],
    [`https://x.example/${w}//walks/w`, false],
    [`https://x.example/${w}/s/walks/`, false],
    [`https://x.example/${w}/s%zz/walks/w`, false],
    [`https://x.example/${w}/s t/walks/w`, false],
    [`HTTPS://x.example/${w}/s/walks/w`, false],
  ])('judges %s: %s', (link, expected) => {
    expect(admits(current, field, link)).toBe(expected);
  });
});
