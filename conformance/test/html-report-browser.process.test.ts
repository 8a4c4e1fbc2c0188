/**
 * The HTML report in headless Chromium, opened from disk as QA would open a build artifact: it
 * renders its sections, the page asks for nothing beyond itself, and a screenshot is saved to
 * reports/conformance-report.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchHeadlessChromium } from '../../tools/test-support/headless-chromium.ts';
import type { DriftServer } from './drift-server.ts';
import { startDriftServer } from './drift-server.ts';
import type { HtmlRun } from './html-report-run.ts';
import { runForHtmlReport } from './html-report-run.ts';

const SCREENSHOT = new URL('../../reports/conformance-report.png', import.meta.url);

let dir: string;
let server: DriftServer;
let run: HtmlRun;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-html-browser-'));
  server = await startDriftServer();
  run = await runForHtmlReport(server, dir);
  browser = await launchHeadlessChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('HTML report in headless Chromium', () => {
  it('renders the verdict and every section from a file, requesting nothing else', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    context.on('request', (request) => requested.push(request.url()));
    const page = await context.newPage();
    // Wait for the page's own events however busy the machine is: the test's timeout bounds the whole.
    page.setDefaultTimeout(0);
    const url = pathToFileURL(run.htmlPath).href;
    await page.goto(url, { waitUntil: 'load' });

    expect(await page.title()).toMatch(/^Conformance FAIL — http:\/\/127\.0\.0\.1:\d+\//);
    expect(await page.locator('h1 .verdict').innerText()).toBe('FAIL');
    const headings = await page.locator('h2').allInnerTexts();
    expect(headings).toEqual([
      'Since the previous report',
      expect.stringMatching(/^Failures \(\d+\)$/),
      'Security view (OWASP API Security Top 10, 2023)',
      `Expected failures (${run.report.expectations?.entries.length})`,
      expect.stringMatching(/^Drift \(\d+\)$/),
      expect.stringMatching(/^Advisories \(\d+\)$/),
      'Coverage',
      'Results per area and requirement',
    ]);
    // a curl reproduction reads as the command to paste, not as escaped markup
    const curl = await page.locator('#check-DRIFT-002 pre.curl').innerText();
    expect(curl).toBe(run.report.results.find((r) => r.id === 'DRIFT-002')?.request?.curl);
    expect(requested).toEqual([url]);

    mkdirSync(new URL('./', SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT.pathname, fullPage: true });
    await context.close();
  });
});
