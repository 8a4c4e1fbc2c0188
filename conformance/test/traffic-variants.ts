/**
 * Which broken variants of the mutation self-test (`mutations.ts`) a recording shows: each caught
 * variant with the `--traffic` rule that fails on the suite's own `--har` recording of a run
 * against it, and each other variant with why a recording cannot show its fault.
 * `mutations.test.ts` holds both lists true; `coverage-table.ts` prints them in COVERAGE.md.
 */
/** Each variant whose fault shows in its recording, and the rule(s) that catch it there. */
export const CAUGHT: Record<string, string | string[]> = {
  'success-without-ok': 'ENVELOPE-001',
  'meta-count-off-by-one': 'ENVELOPE-002',
  'html-404': ['NOT-FOUND-001', 'ENVELOPE-011'],
  'error-without-message': 'ENVELOPE-003',
  'text-plain': 'ENVELOPE-004',
  'lat-as-string': 'ENVELOPE-005',
  'xml-on-accept': 'ENVELOPE-004',
  'list-data-object': 'WALKS-LIST-001',
  'default-limit-20': 'WALKS-LIST-002',
  'limit-1-gives-2': 'WALKS-LIST-003',
  'limit-200-gives-201': 'WALKS-LIST-004',
  'limit-200-gives-10': 'WALKS-LIST-004',
  'limit-ignored': 'WALKS-LIST-014',
  'duplicate-walk': 'WALKS-LIST-005',
  'summary-without-name': 'WALKS-LIST-006',
  'counts-key-missing': 'WALKS-LIST-007',
  'web-url-wrong-id': 'WALKS-LIST-008',
  'app-link-other-slug': 'WALKS-LIST-008',
  'slug-varies': 'WALKS-LIST-009',
  'counts-extra-total': 'WALKS-LIST-015',
  'empty-campaign-404': 'WALKS-LIST-011',
  'archived-walk-listed': 'WALK-DETAIL-001',
  'detail-name-differs': 'WALK-DETAIL-002',
  'stops-out-of-order': 'WALK-DETAIL-003',
  'positions-from-0': 'WALK-DETAIL-004',
  'unknown-status': 'WALK-DETAIL-005',
  'duplicate-stop-ids': 'WALK-DETAIL-006',
  'count-off-by-one': 'CONSISTENCY-001',
  'counts-shifted': 'CONSISTENCY-002',
  'centroid-off': 'CONSISTENCY-003',
  'null-island': 'CONSISTENCY-003',
  'x-api-key-other-data': 'AUTH-002',
  'x-api-key-other-campaign-as-empty': 'AUTH-013',
  'other-campaign-lists-ours': 'WALK-DETAIL-001',
  'other-campaign-fetches-ours': 'TRAFFIC-003',
  'we-fetch-theirs': 'TRAFFIC-003',
  'unknown-walk-code': ['NOT-FOUND-001', 'ENVELOPE-014'],
  'malformed-id-not-found-400': 'ENVELOPE-014',
  'malformed-id-500': 'NOT-FOUND-002',
  'unknown-path-html': 'NOT-FOUND-004',
  'planned-lists-served': 'PLANNED-001',
  'limit-500-limits-001': 'LIMITS-001',
  'limit-500-limits-002': 'LIMITS-002',
  'limit-500-limits-003': 'LIMITS-003',
  'limit-500-limits-004': 'LIMITS-004',
  'limit-500-limits-005': 'LIMITS-005',
  'limit-500-limits-006': 'LIMITS-006',
  'limit-500-limits-007': 'LIMITS-007',
  'limit-500-limits-008': 'LIMITS-008',
  'post-allowed': 'METHODS-001',
  'put-allowed': 'METHODS-002',
  'patch-allowed': 'METHODS-003',
  'delete-allowed': 'METHODS-004',
  'one-in-twenty-502': 'ENVELOPE-011',
  'undocumented-field': 'DRIFT-001',
  'undocumented-status': 'DRIFT-002',
  'problem-json': 'DRIFT-003',
};

const KEY_VALIDITY =
  'whether a recorded key is valid, unknown, revoked or lacks a scope is not in the recording';

const PATH_SPELLING = 'another spelling of a live path belongs to no documented operation';
const KEYLESS = 'a request that looks keyless may have had a key a sanitized export dropped';

/** Variants whose fault a recording cannot show, and why. */
export const NOT_IN_TRAFFIC: Record<string, string> = {
  'wrong-web-base':
    'the expected web base URL is configuration, not traffic (a recording judged with CONFORMANCE_WEB_BASE_URL set shows it)',
  'bearer-ignored': KEY_VALIDITY,
  'x-api-key-ignored': KEY_VALIDITY,
  'no-key-accepted':
    'sanitized HAR exports drop Authorization, so a request that looks keyless may have had a key',
  'unknown-key-accepted': KEY_VALIDITY,
  'basic-auth-accepted': KEY_VALIDITY,
  'revoked-key-accepted': KEY_VALIDITY,
  'no-scope-served': KEY_VALIDITY,
  'no-scope-401': KEY_VALIDITY,
  'other-campaign-404-differs':
    "whether a 404 was another campaign's walk or an unknown id is not in the recording",
  'gzip-label-on-plain-body': 'an answer that does not decode is recorded without a body (not judged)',
  'x-api-key-ignores-revocation': KEY_VALIDITY,
  'key-prefix-compared': KEY_VALIDITY,
  'trailing-slash-unguarded': `${PATH_SPELLING}; ${KEYLESS}`,
  'dot-segments-unguarded': `${PATH_SPELLING}; ${KEYLESS}`,
  'key-echoed-in-header':
    'which header value was a key is not in a recording: exporters and our own --har replace keys before they are written',
};

/** The rules that must fail on a variant's recording. */
export const rulesCatching = (name: string): string[] => [CAUGHT[name] ?? []].flat();
