import { mkdirSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchHeadlessChromium, sourceOf } from '../../tools/test-support/headless-chromium.ts';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { loadSpec, operationsOf, resolveRef } from '../../spec/contract.ts';
import { buildApiReference } from '../build.ts';
import { codeSamplesOf, sandboxUrlOf } from '../code-samples.ts';
import { withPartnerSections } from '../sections.ts';

const doc = loadSpec();
const SCREENSHOT = new URL('../../reports/docs.png', import.meta.url);

let server: RunningServer;
let baseUrl: string;
let sampleWalkId: string;
let browser: Browser;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  await buildApiReference();
  server = await startReferenceServer({ host: '127.0.0.1', port: 0, log: false });
  baseUrl = server.baseUrl;
  // The walk the server fills the detail samples with, as its .http file names it.
  const http = await (await fetch(`${baseUrl}/requests.http`)).text();
  sampleWalkId = /^@walkId = (\S+)$/m.exec(http)?.[1] ?? '';

  browser = await launchHeadlessChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1800 } });
  context.on('request', (request) => requested.push(request.url()));
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});

/** The section of the page that documents one operation. */
function sectionOf(op: ReturnType<typeof operationsOf>[number]) {
  return page
    .locator('[data-section-id]')
    .filter({ has: page.locator('h2').getByText(op.definition.summary ?? '', { exact: true }) });
}

/**
 * Opens the page at one operation. Redoc renders the operations only once their tag's section
 * comes into view, and the partner sections (docs/sections.ts) push it below the first screen.
 */
async function openOperation(op: ReturnType<typeof operationsOf>[number]): Promise<void> {
  await page.goto(`${baseUrl}/docs`, { waitUntil: 'networkidle' });
  const tag = op.definition.tags?.[0]?.toLowerCase() ?? '';
  await page.locator(`[data-section-id="/${tag}"]`).scrollIntoViewIfNeeded();
  await page.getByText(op.path, { exact: true }).first().click();
}

/** Each server's URL as the page lists it: variables replaced by their defaults. */
const serverUrls = (doc.servers ?? []).map((server) =>
  Object.entries(server.variables ?? {}).reduce(
    (url, [name, variable]) => url.replaceAll(`{${name}}`, variable.default),
    server.url,
  ),
);

/** Waits (bounded in time and attempts) until a code block shows this code. */
async function waitForCode(code: Locator, expected: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let attempt = 0; attempt < 100 && Date.now() < deadline; attempt++) {
    if (codeLines(await code.innerText()) === codeLines(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // the assertion that follows shows the difference
}

/** Code as compared here: each line's trailing blanks dropped (a rendered `pre` may add some). */
function codeLines(code: string): string {
  return code
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}

/** The served detail samples name the server's sample walk instead of the spec's example. */
function withServedWalk(source: string): string {
  return source.replace(/(\/api\/v1\/walks\/)[0-9a-f-]{36}/, `$1${sampleWalkId}`);
}

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Markdown as the page shows it: no emphasis, code or list marks, whitespace collapsed. */
function asRendered(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*[-*]\s+/gm, '')
    .replace(/\*\*|`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

type Schema = OpenAPIV3_1.SchemaObject;

/** The description of every property reachable from a schema, as the docs page should list them. */
function fieldDescriptions(schema: Schema | OpenAPIV3_1.ReferenceObject, seen = new Set<Schema>()): string[] {
  const resolved = resolveRef<Schema>(doc, schema);
  if (seen.has(resolved)) return [];
  seen.add(resolved);
  const found: string[] = [];
  for (const property of Object.values(resolved.properties ?? {})) {
    const target = resolveRef<Schema>(doc, property);
    const description = (property as Schema).description ?? target.description;
    if (description) found.push(description);
    found.push(...fieldDescriptions(property, seen));
  }
  if (resolved.type === 'array' && resolved.items) found.push(...fieldDescriptions(resolved.items, seen));
  return found;
}

/**
 * The fields of an operation's success body: those of the payload (`data`) and of `meta`. The
 * envelope's own `ok` and `data` are left out: the page describes them once, as the envelope does.
 */
function successFields(op: OpenAPIV3_1.OperationObject): string[] {
  const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, op.responses?.['200']);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${op.operationId} documents no 200 body`);
  const envelope = resolveRef<Schema>(doc, schema);
  return Object.entries(envelope.properties ?? {}).flatMap(([name, property]) => {
    if (name === 'ok') return [];
    if (name === 'data') return fieldDescriptions(property);
    const own = (property as Schema).description ?? resolveRef<Schema>(doc, property).description;
    return [...(own ? [own] : []), ...fieldDescriptions(property)];
  });
}

/** The visible text of the element with this `data-section-id` (the whole page when null), whitespace collapsed. */
async function textOf(sectionId: string | null): Promise<string> {
  const root = sectionId === null ? page.locator('body') : page.locator(`[data-section-id="${sectionId}"]`);
  return (await root.innerText()).replace(/\s+/g, ' ');
}

/** Waits (bounded in time and attempts) until every text is shown; nested fields render after the rest. */
async function waitForTexts(sectionId: string | null, texts: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let attempt = 0; attempt < 100 && Date.now() < deadline; attempt++) {
    const shown = await textOf(sectionId);
    if (texts.every((text) => shown.includes(text))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // the assertions that follow say which text is missing
}

// A loaded CI machine can take tens of seconds per page; the bound only stops a hung browser.
describe('the API reference page at /docs, in headless Chromium', { timeout: 120_000 }, () => {
  it('opens on the overview: both endpoints, the private-beta note and both auth headers', async () => {
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'networkidle' });
    // The spec's own paragraphs and the partner sections' plain ones, with the server's origin in
    // place of the sandbox's default (headings, lists and tables render in their own way).
    const paragraphs = (withPartnerSections(doc).info.description ?? '')
      .split(/\n\s*\n/)
      .filter((p) => !/^#|^\s*(\d+\.|-|\|)/m.test(p))
      .map((p) => asRendered(p.replaceAll(sandboxUrlOf(doc), baseUrl)));
    expect(paragraphs.some((p) => p.startsWith('Every request is a GET, so retrying is always safe.'))).toBe(
      true,
    );
    expect(paragraphs.some((p) => p.startsWith('Private beta.'))).toBe(true);
    const paths = operationsOf(doc).map((op) => op.path);
    await waitForTexts(null, [...paths, ...paragraphs]);
    const text = await textOf(null);
    for (const path of paths) expect(text).toContain(path);
    for (const paragraph of paragraphs) expect(text).toContain(paragraph);
    expect(text).toContain('Authorization: Bearer <API_KEY>');
    expect(text).toContain('x-api-key: <API_KEY>');
  });

  it.each(operationsOf(doc).map((op) => [op.operationId, op] as const))(
    'shows %s: its summary, every response field with its meaning, and every status with its meaning',
    async (_id, op) => {
      await openOperation(op);
      // Both operations render on one page: everything below is looked up inside this one's section.
      const section = sectionOf(op);
      await section.getByRole('tab', { name: '200', exact: true }).waitFor();
      expect(await section.count()).toBe(1);
      const sectionId = await section.getAttribute('data-section-id');
      for (const scheme of (op.definition.security ?? []).flatMap(Object.keys)) {
        expect(await textOf(sectionId)).toContain(scheme);
      }

      const fields = successFields(op.definition).map(asRendered);
      expect(fields.length).toBeGreaterThan(4);
      await waitForTexts(sectionId, fields);
      const withFields = await textOf(sectionId);
      for (const description of fields) expect(withFields).toContain(description);

      for (const status of op.statuses) {
        await section.getByRole('tab', { name: status, exact: true }).click();
        const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, op.definition.responses?.[status]);
        const meaning = asRendered(response.description);
        await waitForTexts(sectionId, [meaning]);
        expect(await textOf(sectionId), `${op.operationId} ${status}`).toContain(meaning);
      }
      if (op.operationId === 'listWalks') {
        mkdirSync(new URL('./', SCREENSHOT), { recursive: true });
        await section.getByRole('tab', { name: '200', exact: true }).click();
        await page.screenshot({ path: SCREENSHOT.pathname });
      }
    },
  );

  it.each(operationsOf(doc).map((op) => [op.operationId, op] as const))(
    'shows %s with the sandbox server first, and a curl, a fetch and a requests sample against it',
    async (_id, op) => {
      await openOperation(op);
      const panel = sectionOf(op)
        .getByTestId('right-panel')
        .filter({ has: page.getByTestId('source-code') })
        .first();
      const [serverMenu, languageMenu] = [
        panel.getByTestId('dropdown').nth(0),
        panel.getByTestId('dropdown').nth(1),
      ];

      await serverMenu.getByRole('button').click();
      const servers = (await serverMenu.getByRole('menuitem').allInnerTexts()).map((text) => text.trim());
      expect(servers).toHaveLength(serverUrls.length);
      // The server names its own origin where the spec names the sandbox's default one.
      const served = serverUrls.map((url) => url.replace(sandboxUrlOf(doc), baseUrl));
      served.forEach((url, index) => expect(servers[index]).toContain(`${url}${op.path}`));
      expect(servers[0]).toContain(`${baseUrl}${op.path}`);
      await page.keyboard.press('Escape');

      const samples = codeSamplesOf(doc, op);
      expect(samples.map((sample) => sample.label)).toEqual([
        'curl',
        'JavaScript (fetch)',
        'Python (requests)',
      ]);
      for (const built of samples) {
        // As served: this server's origin, and a walk of its data in the detail samples.
        const source = built.source.replaceAll(sandboxUrlOf(doc), baseUrl);
        const sample = { ...built, source: op.path.includes('{') ? withServedWalk(source) : source };
        expect(sample.source).toContain(baseUrl);
        await languageMenu.getByRole('button').click();
        // The language menu opens in a layer of its own, outside the panel.
        await page.getByRole('menuitem', { name: sample.label, exact: true }).click();
        const code = panel.getByTestId('source-code');
        await waitForCode(code, sample.source);
        expect(codeLines(await code.innerText()), `${op.operationId} ${sample.label}`).toBe(
          codeLines(sample.source),
        );
      }
    },
  );

  it('runs in the Chromium that npm installed (@sparticuz/chromium), not a system one', () => {
    expect(sourceOf(browser)).toBe('npm');
  });

  it('never made a request that left 127.0.0.1', () => {
    expect(requested.length).toBeGreaterThan(0);
    const remote = requested.filter((url) => {
      const { protocol, hostname } = new URL(url);
      return !(protocol === 'blob:' || protocol === 'data:' || hostname === '127.0.0.1');
    });
    expect(remote).toEqual([]);
  });
});
