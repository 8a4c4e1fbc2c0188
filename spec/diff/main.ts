/** `npm run spec:diff -- …`: runs the command (cli.ts) on this process's arguments, exits with its status. */
import { PROCESS_OUTPUT } from '../../command-line/output.ts';
import { main } from './cli.ts';

process.exitCode = await main(process.argv.slice(2), PROCESS_OUTPUT);
