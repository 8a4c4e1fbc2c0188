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
  'bearer-ignored': 'AUTH-001',
  'x-api-key-ignored': 'AUTH-002',
  'x-api-key-other-data': ['AUTH-002', 'AUTH-013'],
  'no-key-accepted': 'AUTH-003',
  'unknown-key-accepted': 'AUTH-005',
  'basic-auth-accepted': 'AUTH-007',
  'any-scheme-accepted': 'AUTH-007',
  'key-prefix-optional': 'AUTH-007',
  'revoked-key-accepted': 'AUTH-009',
  'no-scope-served': 'AUTH-011',
  'no-scope-401': 'AUTH-011',
  'x-api-key-ignores-revocation': ['AUTH-009', 'AUTH-013'],
  'x-api-key-other-campaign-as-empty': 'AUTH-013',
  'key-prefix-compared': 'AUTH-014',
  'trailing-slash-unguarded': 'AUTH-015',
  'dot-segments-unguarded': 'AUTH-015',
  'other-campaign-lists-ours': ['ISOLATION-001', 'WALK-DETAIL-001'],
  'other-campaign-fetches-ours': 'ISOLATION-002',
  'other-campaign-404-differs': 'ISOLATION-003',
  'we-fetch-theirs': 'ISOLATION-002',
  'url-keyed-cache': ['ISOLATION-002', 'AUTH-003'],
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

/** Variants whose fault a recording cannot show, and why. */
export const NOT_IN_TRAFFIC: Record<string, string> = {
  'wrong-web-base':
    'the expected web base URL is configuration, not traffic (a recording judged with CONFORMANCE_WEB_BASE_URL set shows it)',
  'gzip-label-on-plain-body': 'an answer that does not decode is recorded without a body (not judged)',
  'key-echoed-in-header':
    'the key values are not in a recording: exporters and our own --har replace keys before they are written, so an echo cannot be matched',
};

/** The rules that must fail on a variant's recording. */
export const rulesCatching = (name: string): string[] => [CAUGHT[name] ?? []].flat();
