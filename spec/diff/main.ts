/** `npm run spec:diff -- …`: runs the command (cli.ts) on this process's arguments, exits with its status. */
import { main } from './cli.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
