/** Why `spec:diff` could not compare two specs. Every one ends the command with exit status 2. */
export type SpecDiffErrorCode =
  | 'usage'
  | 'spec_not_found'
  | 'invalid_yaml'
  | 'not_openapi'
  | 'git_ref'
  | 'engine_failed'
  | 'invalid_acknowledgements';

export class SpecDiffError extends Error {
  override readonly name = 'SpecDiffError';

  readonly code: SpecDiffErrorCode;

  constructor(code: SpecDiffErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
