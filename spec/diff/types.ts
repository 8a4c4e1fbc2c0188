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

interface EngineVerdict {
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
  /**
   * Stable across runs: `RULE@PLACE`, the rule id, `@`, then where the change sits with ` > `
   * between the parts (`schema-constraint-changed@GET /api/v1/walks > parameter limit (query) > maximum`).
   * No file name, line or order enters it. `spec/accepted-changes.yaml` names breaks by it.
   */
  id: string;
  classification: Classification;
  /** One line on what a client written against the old spec now sees. */
  impact: string;
  /** Readable place, e.g. `GET /api/v1/walks · parameter limit (query)`. */
  where: string;
  kind: EngineChange['kind'];
  property?: string;
  /** What changed and, for breaking changes, why it breaks clients. */
  message: string;
  /**
   * The rule that classified it: a Redocly rule id, `project/...` for this project's rules, or
   * `non-breaking/<kind>` and `annotation/<kind>` for a change no rule flags.
   */
  rule: string;
  /** Redocly's own rating, kept so a report shows where the project's rules overrode it. */
  engineImpact?: EngineChange['impact'];
  base?: SourceLocation;
  head?: SourceLocation;
}

export interface SpecDiff {
  /** How each spec is named in reports: a file path, or `REF:path` for a git revision. */
  base: string;
  head: string;
  /** `info.version` of the old and the new spec. */
  baseVersion: string;
  headVersion: string;
  verdict: Verdict;
  counts: Record<Classification, number>;
  changes: ClassifiedChange[];
}

/** An entry of `spec/accepted-changes.yaml`: a breaking change the API team accepts. */
export interface Acknowledgement {
  id: string;
  reason: string;
  /** `YYYY-MM-DD`: after this day (UTC) the entry is expired. */
  expires?: string;
  /** The new spec's `info.version` the entry holds for; any other version expires it. */
  specVersion?: string;
}

export interface AcknowledgementProblem {
  id: string;
  problem: 'stale' | 'expired';
  /** Why, in a sentence. */
  message: string;
}

/** What the gate decides: the diff, each breaking change accepted or not, and problem entries. */
export interface GateResult extends SpecDiff {
  /** The acknowledgement file consulted (it may not exist yet), or undefined when none was. */
  acknowledgements?: string;
  /** Ids of breaking changes an entry accepts, with the entry. */
  accepted: Record<string, Acknowledgement>;
  problems: AcknowledgementProblem[];
  /** `pass` when every breaking change is accepted and no entry is stale or expired. */
  gate: 'pass' | 'fail';
}
