/**
 * Requirement ids that were merged into another rule when live runs and recorded traffic came to
 * share one judge. Files written before (expected-failures lists, `--only`/`--skip` lines in CI,
 * reports read with `--compare`) keep working: an old id stands for the rule that states its
 * requirement now.
 */
export const RENAMED: Readonly<Record<string, string>> = {
  /** A list holds no more items than its limit asked for: part of the page-size rule. */
  'TRAFFIC-001': 'WALKS-LIST-014',
  /** A summary's counts add up to its count: the summary-against-detail count rule. */
  'TRAFFIC-002': 'CONSISTENCY-001',
  /** No item answered to keys of two campaigns: the isolation rule, both ways. */
  'TRAFFIC-003': 'ISOLATION-002',
  /** Each written error status with its code: the pairing rule over every answer. */
  'TRAFFIC-005': 'ENVELOPE-014',
  /** The lists one key got agree on one collection size: the page-size rule. */
  'TRAFFIC-006': 'WALKS-LIST-014',
  /** An item listed to a key is found for that key: the listed-item rule. */
  'TRAFFIC-007': 'WALK-DETAIL-001',
  /** Every write is refused: the write rules, by method (POST's rule for any other write). */
  'TRAFFIC-008': 'METHODS-001',
  /** This key asked for the other campaign's items: isolation is one rule, both ways. */
  'ISOLATION-004': 'ISOLATION-002',
};

/** The id a requirement has now. */
export const currentId = (id: string): string => RENAMED[id] ?? id;
