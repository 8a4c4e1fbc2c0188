/**
 * `postinstall`: builds the reference server's bundle, and the API reference page when Redocly (a
 * dev dependency) is installed. `npm ci --omit=dev` installs no Redocly: it skips the page, and
 * `/docs` answers 503 `docs_not_built` until `npm run docs:build` (or `npm start`, which tries).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const launcher = fileURLToPath(new URL('../../reference-server/launch.js', import.meta.url));
execFileSync(process.execPath, [launcher, '--build-only'], { stdio: 'inherit' });

let redocly = true;
try {
  createRequire(import.meta.url).resolve('@redocly/cli/package.json');
} catch {
  redocly = false;
}
if (redocly) {
  const { buildApiReference } = await import('../../docs/build.ts');
  await buildApiReference();
} else {
  console.log('postinstall: no dev dependencies, so no API reference page (npm run docs:build makes it).');
}
