/**
 * A full conformance run against a running reference server, timed as a user sees it: the CLI in a
 * fresh process, from spawn to exit. With `delayMs`, every request passes through a proxy that
 * holds it that long first, so each answer arrives `delayMs` later (a distant deployment).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceFigures } from './figures.ts';
import { LAUNCHER } from '../command-line/launch.js';
import { ROOT } from './processes.ts';

interface ConformanceReport {
  requests: { sent: number };
  summary: { verdict: string };
}

export async function timeConformanceRun(
  baseUrl: string,
  credentials: Record<string, string>,
  delayMs: number,
): Promise<ConformanceFigures> {
  const proxy = delayMs > 0 ? await delayingProxy(baseUrl, delayMs) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
  const output = join(dir, 'report.json');
  try {
    const started = performance.now();
    const exitCode = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          LAUNCHER,
          'conformance/main.ts',
          '--base-url',
          proxy?.url ?? baseUrl,
          '--reporter',
          'json',
          '--output',
          output,
        ],
        { cwd: ROOT, env: { ...process.env, ...credentials }, stdio: 'ignore' },
      );
      child.once('exit', (code) => resolve(code));
      child.once('error', () => resolve(null));
    });
    const wallMs = performance.now() - started;
    const report = JSON.parse(readFileSync(output, 'utf8')) as ConformanceReport;
    return {
      scenario: delayMs > 0 ? 'delayed' : 'direct',
      delayMs,
      wallMs,
      requests: report.requests.sent,
      verdict: report.summary.verdict,
      exitCode,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await proxy?.close();
  }
}

/** A proxy that holds every request for `delayMs` before passing it on unchanged. */
export async function delayingProxy(
  target: string,
  delayMs: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const proxy = createServer((req, res) => {
    setTimeout(() => {
      const out = forward(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
        },
      );
      out.once('error', () => res.destroy());
      req.pipe(out);
    }, delayMs);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}
