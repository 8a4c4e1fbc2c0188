/** Flag values shared by the mock and sandbox launchers; the mistakes are the shared `UsageError`. */
import { UsageError } from '../command-line/flags.ts';

/** A TCP port given on the command line: decimal digits only, 1 to 65535. */
export function parsePort(value: string, flag: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new UsageError(`${flag} must be a port number from 1 to 65535 (got ${JSON.stringify(value)}).`);
  }
  return port;
}
