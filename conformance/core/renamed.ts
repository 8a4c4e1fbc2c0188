/**
 * Requirement ids a rule had before: ids merged into another rule when live runs and recorded
 * traffic came to share one judge, and ids named for walks that belong to rules judging any
 * collection or item of the spec under test. Files written before (expected-failures lists,
 * `--only`/`--skip` lines in CI, reports read with `--compare`) keep working: an old id stands for
 * the rule that states its requirement now, and an old prefix (`--only WALKS-LIST`) still selects
 * the rules its ids had.
 */
export const RENAMED: Readonly<Record<string, string>> = {
  /** A list holds no more items than its limit asked for: part of the page-size rule. */
  'TRAFFIC-001': 'COLLECTION-008',
  /** A summary's counts add up to its count: the summary-against-detail count rule. */
  'TRAFFIC-002': 'CONSISTENCY-001',
  /** No item answered to keys of two campaigns: the isolation rule, both ways. */
  'TRAFFIC-003': 'ISOLATION-002',
  /** Each written error status with its code: the pairing rule over every answer. */
  'TRAFFIC-005': 'ENVELOPE-014',
  /** The lists one key got agree on one collection size: the page-size rule. */
  'TRAFFIC-006': 'COLLECTION-008',
  /** An item listed to a key is found for that key: the listed-item rule. */
  'TRAFFIC-007': 'ITEM-001',
  /** Every write is refused: the write rules, by method (POST's rule for any other write). */
  'TRAFFIC-008': 'METHODS-001',
  /** This key asked for the other campaign's items: isolation is one rule, both ways. */
  'ISOLATION-004': 'ISOLATION-002',
  /** The rules of any collection the spec declares were named for the walks list. */
  'WALKS-LIST-001': 'COLLECTION-001',
  'WALKS-LIST-002': 'COLLECTION-002',
  'WALKS-LIST-003': 'COLLECTION-003',
  'WALKS-LIST-004': 'COLLECTION-004',
  'WALKS-LIST-005': 'COLLECTION-005',
  'WALKS-LIST-011': 'COLLECTION-006',
  'WALKS-LIST-012': 'COLLECTION-007',
  'WALKS-LIST-014': 'COLLECTION-008',
  /** The rules of any item the spec declares were named for the walk detail. */
  'WALK-DETAIL-001': 'ITEM-001',
  'WALK-DETAIL-002': 'ITEM-002',
};

/** The id a requirement has now. */
export const currentId = (id: string): string => RENAMED[id] ?? id;

/** The ids a rule had before, for a prefix of an old id to select it still. */
export const formerIds = (id: string): string[] =>
  Object.entries(RENAMED).flatMap(([old, now]) => (now === id ? [old] : []));
