/**
 * Ground layer: who the suite is — its name and version, as reports and the `User-Agent` header
 * state them. Lower layers (the client, the runner, the HAR) need these without depending on the
 * command-line parser, so they live here rather than in `config.ts`.
 */
import { readFileSync } from 'node:fs';

/** The tool's name: the package, the bin, the report's `tool.name` and the User-Agent product. */
export const TOOL_NAME = 'canvassing-conformance';

/**
 * The version of the package this file ships in: the repository's `package.json`, or in the
 * built package the one `tools/packaging/build.ts` writes beside the bundle.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const USER_AGENT = `${TOOL_NAME}/${VERSION}`;
