/**
 * `npm run docs:build [-- --force]`: renders spec/generated/api-reference.html from the spec,
 * skipping the work when the page is already newer than the spec (so pretest and postinstall stay cheap).
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApiReference } from './build.ts';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { force: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    console.log(
      'Usage: npm run docs:build [-- --force]\nBuilds spec/generated/api-reference.html from spec/openapi.yaml.',
    );
    return 0;
  }
  const started = Date.now();
  const result = await buildApiReference({ force: values.force });
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
