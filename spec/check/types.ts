/** Shapes of `spec:check`: three parts, each judged on its own, and one verdict over them. */
import type { GateResult } from '../diff/types.ts';

export type PartName = 'lint' | 'diff' | 'conformance';

/** `error`: the part could not judge (unusable input, a tool that would not run). */
export type PartStatus = 'pass' | 'fail' | 'error';

export interface PartResult {
  name: PartName;
  status: PartStatus;
  /** One line. */
  summary: string;
  /** What a reader needs to act on a failure: problems, failing checks, drift findings. */
  details: string[];
  /** The diff part's full result, for the Markdown and JSON reports. */
  gate?: GateResult;
  /** Where the conformance part kept its reports, when asked to. */
  reports?: string[];
}

export interface CheckResult {
  /** The new spec, as given. */
  spec: string;
  specVersion: string;
  baseRef: string;
  verdict: 'pass' | 'fail' | 'error';
  parts: PartResult[];
}
