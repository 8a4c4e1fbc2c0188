/**
 * What a check is: a requirement of the written spec (id, section, title, level) plus one small
 * function that judges the target through the context and returns an outcome.
 */
import type { ContractValidator } from '../../spec/contract.ts';
import type { WEB_BASE_URL_NAME } from '../../spec/facts.ts';
import type { HttpClient } from '../client.ts';
import type { SuiteData } from '../shared-fetches.ts';
import type { OperationMatcher } from '../operations.ts';
import type { Area, KeyName, Level, MockMode, Outcome, SuiteConfig } from '../types.ts';

export interface CheckContext {
  readonly config: SuiteConfig;
  readonly client: HttpClient;
  readonly data: SuiteData;
  /** Open objects: decides pass/fail on shapes. */
  readonly contract: ContractValidator;
  /** Closed objects: its extra findings (undocumented fields) are drift. */
  readonly closedContract: ContractValidator;
  /** Which documented operation an exchange belongs to. */
  readonly operations: OperationMatcher;
}

export interface Check {
  /** Stable requirement id, e.g. `WALKS-LIST-003`. */
  id: string;
  /** Section of the written spec the rule comes from, e.g. `§4.2`. */
  section: string;
  /** What is being checked, in words a tester understands. */
  title: string;
  area: Area;
  level: Level;
  /** Drift findings (undocumented fields, statuses, content types): advisory, failures under `--strict`. */
  drift?: true;
  /** The decision in spec/DECISIONS.md an advisory check reports on. */
  decision?: string;
  /** Keys the check needs; it is skipped, naming the variable, when one is not configured. */
  needs?: KeyName[];
  /** Only when this optional setting is configured (e.g. the web base URL). */
  needsSetting?: typeof WEB_BASE_URL_NAME;
  /**
   * How `--profile mock` treats it, declared by every check: `run`, or skipped with the reason a
   * mock cannot show it. The target's profile applies it (`target.ts`); no check body tests it.
   */
  mock: MockMode;
  /** Traffic checks look at every exchange of the run, so they run after all the others. */
  traffic?: true;
  /** How to fix a failure, in one sentence. */
  hint: string;
  run(ctx: CheckContext): Promise<Outcome>;
}
