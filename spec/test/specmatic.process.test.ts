/**
 * The spec loads in Specmatic: its mock samples every string pattern when it loads a
 * spec, and an unsamplable pattern hangs it (D-LINK-PATTERNS). The pinned devDependency
 * `specmatic` ships the jar; it needs Java 17. Under CI a missing `java` fails this test (.ci/run
 * installs it); elsewhere the test is skipped with the reason.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../command-line/free-port.ts';
import {
  killGroup,
  type Launched,
  launchCommand,
  waitForGroupGone,
} from '../../tools/test-support/child-launcher.ts';
import { createContractValidator } from '../contract.ts';
import { LIVE_SPEC_PATH } from '../facts.ts';

const HOST = '127.0.0.1';
/** Specmatic takes seconds to load the spec; a hang (as unbounded string patterns once caused) never prints the line. */
const START_TIMEOUT_MS = 90_000;
const REQUEST_TIMEOUT_MS = 20_000;
const READY_LINE = 'Mock server is running';
/** Any key: Specmatic checks that the scheme's header is present, not the key. */
const HEADERS = { 'x-api-key': 'specmatic-test-key' };
const JAR = join(dirname(createRequire(import.meta.url).resolve('specmatic/package.json')), 'specmatic.jar');

const javaRuns = spawnSync('java', ['-version'], { stdio: 'ignore', timeout: 20_000 }).status === 0;
const underCi = Boolean(process.env.CI);

describe.skipIf(!javaRuns && !underCi)('Specmatic 2.55.1 mock of the live spec', () => {
  const validator = createContractValidator();
  let mock: Launched | undefined;
  let base = '';

  beforeAll(async () => {
    if (!javaRuns) return;
    const port = await freePort(HOST);
    base = `http://${HOST}:${port}`;
    mock = launchCommand('java', ['-jar', JAR, 'mock', LIVE_SPEC_PATH, `--host=${HOST}`, `--port=${port}`]);
    await mock.waitForOutput(READY_LINE, START_TIMEOUT_MS);
  }, START_TIMEOUT_MS + 5_000);

  afterAll(async () => {
    if (!mock) return;
    killGroup(mock.pgid);
    expect(await waitForGroupGone(mock.pgid)).toBe(true);
  });

  async function get(path: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${base}${path}`, {
      headers: HEADERS,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: response.status, body: await response.json() };
  }

  it('runs where CI runs it: java is on the PATH', () => {
    expect(javaRuns, 'java (17+) is missing: .ci/run installs openjdk-17-jre-headless').toBe(true);
  });

  it(
    'answers the list with links the contract admits',
    async () => {
      const links: string[] = [];
      for (let attempt = 0; attempt < 6 && links.length < 4; attempt++) {
        const { status, body } = await get('/api/v1/walks');
        expect(status).toBe(200);
        expect(validator.validateResponse('listWalks', 200, body).errors).toEqual([]);
        for (const walk of (body as { data: { web_url: string; app_link: string }[] }).data) {
          links.push(walk.web_url, walk.app_link);
        }
      }
      expect(links.length).toBeGreaterThan(0);
      expect(links.filter((l) => l.includes('/dashboard/')).length).toBe(links.length / 2);
    },
    6 * REQUEST_TIMEOUT_MS,
  );

  it('answers a walk detail the contract admits', async () => {
    const { status, body } = await get('/api/v1/walks/0b6f4a5e-1c2d-4e3f-8a9b-0c1d2e3f4a5b');
    expect(status).toBe(200);
    expect(validator.validateResponse('getWalk', 200, body).errors).toEqual([]);
  });
});
