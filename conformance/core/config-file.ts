/**
 * Ground layer: the text of a file a setting names (`--spec`, `--compare`, `--expect-failures`).
 * One that cannot be read is unusable configuration, said the same way for every setting.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';

/** The file's text; a ConfigError `SETTING: CODE` (`--compare x.json: ENOENT`) when it cannot be read. */
export function readConfigFile(setting: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${setting}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}
