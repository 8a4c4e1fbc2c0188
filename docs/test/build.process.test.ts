import { copyFileSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpec, operationsOf } from '../../spec/contract.ts';
import { LIVE_SPEC_PATH } from '../../spec/facts.ts';
import { buildApiReference, makeSelfContained } from '../build.ts';

const dir = mkdtempSync(join(tmpdir(), 'docs-build-'));
const specPath = join(dir, 'openapi.yaml');
const outputPath = join(dir, 'api-reference.html');
copyFileSync(LIVE_SPEC_PATH, specPath);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs:build', () => {
  it('renders every operation of the spec into one file that loads nothing remote', async () => {
    const result = await buildApiReference({ specPath, outputPath, force: true });
    expect(result.built).toBe(true);
    const html = readFileSync(outputPath, 'utf8');
    for (const op of operationsOf(loadSpec(specPath))) {
      expect(html).toContain(op.path);
      expect(html).toContain(op.definition.summary);
    }
    expect(html).not.toMatch(/cdn\.redoc(ly)?\.(ly|com)/);
    expect(html).not.toContain('otel.cloud.redocly.com');
    expect(html).toContain('"disableTelemetry":true');
    expect(html).not.toMatch(/<(script|link|img)\b[^>]*\s(src|href)=["']?https?:/i);
  });

  it('skips the work while the page is newer than the spec, and rebuilds when the spec changes', async () => {
    await buildApiReference({ specPath, outputPath });
    expect((await buildApiReference({ specPath, outputPath })).built).toBe(false);

    const later = new Date(Date.now() + 60_000);
    utimesSync(specPath, later, later);
    expect((await buildApiReference({ specPath, outputPath })).built).toBe(true);
  });

  it('refuses a page that would still load a script from another machine', () => {
    const page =
      '<html><head></head><body><script src="https://example.org/redoc.js"></script></body></html>';
    expect(() => makeSelfContained(page)).toThrow(/remote script/);
    expect(() => makeSelfContained('<head></head><img src="https://cdn.redoc.ly/x.svg">')).toThrow(
      /cdn\.redoc\.ly/,
    );
  });
});
