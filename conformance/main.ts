/** `npm run conformance -- …` or the packaged `canvassing-conformance`: runs the CLI, exits with its status. */
import { PROCESS_OUTPUT } from '../command-line/output.ts';
import { main } from './cli/cli.ts';
import { programOf } from './cli/config.ts';

// Node 20 reads `--env-file` anywhere on its command line, even after the script, and exits 9 when
// the file is missing; it stops looking at `--`. So `npm run conformance` puts a `--` before the
// tester's flags, and the CLI reads `--env-file` itself (its own message, exit 2).
const argv = process.argv.slice(2);
if (argv[0] === '--') argv.shift();

const status = await main(argv, process.env, {
  ...PROCESS_OUTPUT,
  // Colour only for a person at a terminal, and never when NO_COLOR asks for none (no-color.org).
  color: process.stdout.isTTY === true && !process.env.NO_COLOR,
  // A live progress line for a person at a terminal; CI's output stays as it is.
  live: process.stdout.isTTY === true,
  program: programOf(process.argv[1]),
});
process.exitCode = status;
// A target that keeps a socket half-open must not keep the process alive once the report is out.
setTimeout(() => process.exit(status), 2_000).unref();
