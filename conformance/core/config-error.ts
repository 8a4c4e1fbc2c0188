/**
 * Ground layer: unusable configuration (exit status 2). Every layer can refuse a setting (the
 * target, the spec file, an expected-failures file), so the error lives below them all rather than
 * in the command-line parser.
 */
import { UsageError } from '../../command-line/flags.ts';

/** Unusable configuration (exit status 2); a usage mistake of the command line is one too. */
export class ConfigError extends UsageError {
  override readonly code: string = 'CONFORMANCE_CONFIG';
}
