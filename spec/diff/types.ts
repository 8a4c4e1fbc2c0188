/** Shapes of a spec comparison: what Redocly reports, and what `spec:diff` makes of it. */

/** From a client of the base spec's point of view. */
export type Classification = 'breaking' | 'non-breaking' | 'annotation';

/** The whole comparison: the worst classification found, or `no-changes`. */
export type Verdict = 'breaking' | 'non-breaking' | 'annotation-only' | 'no-changes';

/** Where a changed value sits in one of the two spec files. */
export interface SourceLocation {
  file: string;
  pointer: string;
  line: number;
}

export interface EngineVerdict {
  ruleId: string;
  message: string;
}

/** One entry of `redocly diff --format json` (report version 1). */
export interface EngineChange {
  /** JSON pointer through the resolved document, e.g. `#/paths/~1api~1v1~1walks/get/parameters/0/schema`. */
  path: string;
  /** Redocly's node type: `Schema`, `Parameter`, `Response`, `Example`, ... */
  typeName: string;
  kind: 'added' | 'removed' | 'modified';
  impact: 'major' | 'minor' | 'patch';
  verdicts: EngineVerdict[];
  /** The changed key, for `modified` changes. */
  property?: string;
  base?: SourceLocation & { value?: unknown };
  revision?: SourceLocation & { value?: unknown };
}

export interface EngineReport {
  reportVersion: string;
  changes: EngineChange[];
}

export interface ClassifiedChange {
  classification: Classification;
  /** Readable place, e.g. `GET /api/v1/walks · parameter limit (query)`. */
  where: string;
  kind: EngineChange['kind'];
  property?: string;
  /** What changed and, for breaking changes, why it breaks clients. */
  message: string;
  /** The rule that classified it: a Redocly rule id, or `project/...` for this project's rules. */
  rule?: string;
  /** Redocly's own rating, kept so a report shows where the project's rules overrode it. */
  engineImpact?: EngineChange['impact'];
  base?: SourceLocation;
  head?: SourceLocation;
}

export interface SpecDiff {
  /** How each spec is named in reports: a file path, or `REF:path` for a git revision. */
  base: string;
  head: string;
  verdict: Verdict;
  counts: Record<Classification, number>;
  changes: ClassifiedChange[];
}
