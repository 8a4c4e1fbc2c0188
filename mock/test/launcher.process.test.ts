import { createServer, type Server } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../command-line/free-port.ts';
import { isListening } from '../../command-line/listen-url.ts';
import {
  type Launched,
  killGroup,
  launch,
  waitForGroupGone,
} from '../../tools/test-support/child-launcher.ts';

const HOST = '127.0.0.1';
let launched: Launched | undefined;

afterEach(() => {
  if (launched) killGroup(launched.pgid);
  launched = undefined;
});

describe('npm run mock (mock/main.ts)', () => {
  it('serves the live spec with no probe of / in its log, and SIGTERM to the launcher alone stops Prism too', async () => {
    const port = await freePort();
    launched = launch('mock/main.ts', ['--port', String(port)]);
    await launched.waitForOutput('Ctrl-C stops it.');
    expect(launched.output()).toContain(`spec/openapi.yaml (live endpoints) at http://${HOST}:${port}`);
    const answer = await request(`http://${HOST}:${port}/api/v1/walks`, { headers: { 'x-api-key': 'k' } });
    await answer.body.dump();
    expect(answer.statusCode).toBe(200);
    // Prism logs every request; the wait for it to start sent none, so no path it lacks shows.
    await launched.waitForOutput('get /api/v1/walks');
    expect(launched.output()).not.toMatch(/NO_PATH_MATCHED|get \/ /);

    launched.child.kill('SIGTERM');
    expect(await launched.exited).toBe(0);
    expect(await waitForGroupGone(launched.pgid)).toBe(true);
    expect(await isListening(HOST, port)).toBe(false);
  });

  it('serves the planned spec alone with --planned, marked as planned', async () => {
    const port = await freePort();
    launched = launch('mock/main.ts', ['--planned', '--port', String(port)]);
    await launched.waitForOutput('Ctrl-C stops it.');
    expect(launched.output()).toContain('PLANNED ENDPOINTS — NOT ACTIVE');
    const lists = await request(`http://${HOST}:${port}/api/v1/lists`, { headers: { 'x-api-key': 'k' } });
    await lists.body.dump();
    expect(lists.statusCode).toBe(200);

    process.kill(-launched.pgid, 'SIGINT');
    expect(await launched.exited).toBe(0);
    expect(await waitForGroupGone(launched.pgid)).toBe(true);
  });

  it('leaves no orphaned Prism even when the launcher is killed outright (SIGKILL)', async () => {
    const port = await freePort();
    launched = launch('mock/main.ts', ['--port', String(port)]);
    await launched.waitForOutput('Ctrl-C stops it.');
    launched.child.kill('SIGKILL');
    expect(await launched.exited).toBe('SIGKILL');
    expect(await waitForGroupGone(launched.pgid)).toBe(true);
    expect(await isListening(HOST, port)).toBe(false);
  });

  it('exits 1 with a clear message when the port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, HOST, resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      launched = launch('mock/main.ts', ['--port', String(port)]);
      expect(await launched.exited).toBe(1);
      expect(launched.output()).toContain(`${HOST}:${port} is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('serves on a free port with --port 0, and says which', async () => {
    launched = launch('mock/main.ts', ['--port', '0']);
    await launched.waitForOutput('Ctrl-C stops it.');
    const port = Number(/at http:\/\/127\.0\.0\.1:(\d+)/.exec(launched.output())?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(await isListening(HOST, port)).toBe(true);
  });

  it.each([['-1'], ['70000'], ['4010x']])(
    'exits 2 with the shared usage message on --port %s',
    async (port) => {
      launched = launch('mock/main.ts', ['--port', port]);
      expect(await launched.exited).toBe(2);
      expect(launched.output()).toContain(`mock: --port must be an integer from 0 to 65535, not "${port}"`);
      expect(launched.output()).toContain('Run with --help for the options.');
    },
  );

  it('exits 2 naming the nearest flag for a misspelt one', async () => {
    launched = launch('mock/main.ts', ['--prot', '4011']);
    expect(await launched.exited).toBe(2);
    expect(launched.output()).toContain('mock: unknown flag --prot (did you mean --port?)');
  });
});
