/**
 * `npm run sandbox:base [-- --tag TAG]`: a base image for the repository's Dockerfile where no image
 * registry is reachable, made with podman from this machine's Debian packages and the official Node
 * 22 and npm from the npm registry (`sandbox-image.ts`), then the commands that build and run the
 * sandbox on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandSpec, optionsOrExit, readFlags } from '../../command-line/flags.ts';
import { BASE_TAG, buildNodeBase, podmanEnv, podmanMissing } from './sandbox-image.ts';

const COMMAND = {
  name: 'sandbox:base',
  usage: 'npm run sandbox:base -- [--tag TAG]',
  summary:
    "Imports a base image for the Dockerfile with podman (Debian's libraries, Node 22 and npm from the\nnpm registry), for machines that reach no image registry.",
  flags: { tag: { type: 'string', value: 'TAG', help: `The base image's tag (default ${BASE_TAG})` } },
  sections: [{ title: 'Exit status', text: '  0 imported; 1 podman failed or is missing; 2 usage.' }],
} as const satisfies CommandSpec;

async function main(argv: string[]): Promise<number> {
  const options = optionsOrExit(COMMAND, argv, (args) => {
    const { values } = readFlags(COMMAND, args);
    return values.help ? 'help' : { tag: values.tag ?? BASE_TAG };
  });
  if (typeof options === 'number') return options;
  const missing = await podmanMissing();
  if (missing) {
    process.stderr.write(`sandbox:base: ${missing}\n`);
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-base-'));
  try {
    process.stderr.write(`sandbox:base: importing ${options.tag}\n`);
    await buildNodeBase(podmanEnv(dir), options.tag);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `${options.tag} is imported. Build and run the sandbox on it:`,
      `  podman build --build-arg BASE=${options.tag} -t canvassing-sandbox .`,
      '  podman run --rm -p 8080:8080 -p 4010:4010 canvassing-sandbox',
      '',
    ].join('\n'),
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`sandbox:base: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
