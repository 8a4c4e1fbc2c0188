/**
 * `npm run docs:build [-- --force]`: renders spec/generated/api-reference.html from the spec,
 * skipping the work when the page is already newer than the spec (so pretest and postinstall stay cheap).
 */
import { relative } from 'node:path';
import type { CommandSpec } from '../command-line/flags.ts';
import { optionsOrExit, readFlags } from '../command-line/flags.ts';
import { buildApiReference } from './build.ts';

const COMMAND = {
  name: 'docs',
  usage: 'npm run docs:build [-- --force]',
  summary: 'Builds spec/generated/api-reference.html from spec/openapi.yaml.',
  flags: {
    force: { type: 'boolean', help: 'Build even when the page is already newer than the spec' },
  },
} as const satisfies CommandSpec;

async function main(argv: string[]): Promise<number> {
  const options = optionsOrExit(COMMAND, argv, (args) => {
    const { values } = readFlags(COMMAND, args);
    return values.help ? 'help' : { force: values.force ?? false };
  });
  if (typeof options === 'number') return options;
  const { force } = options;
  const started = Date.now();
  const result = await buildApiReference({ force });
  if (result.built) {
    const kib = Math.round(result.bytes / 1024);
    console.log(
      `docs: built ${relative(process.cwd(), result.outputPath)} (${kib} KiB) in ${Date.now() - started} ms`,
    );
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`docs: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
