/** `npm run conformance -- …`: runs the CLI and exits with its status. */
import { main } from './cli.ts';

const status = await main(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = status;
// A target that keeps a socket half-open must not keep the process alive once the report is out.
setTimeout(() => process.exit(status), 2_000).unref();
