import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSpec } from '../../spec/contract.ts';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { freePort } from '../../command-line/free-port.ts';
import { type RunningPrism, startPrism } from '../prism.ts';

// A copy of the live spec whose list example has drifted from its schema: an undocumented field.
const dir = mkdtempSync(join(tmpdir(), 'mock-drift-'));
const driftedSpecPath = join(dir, 'openapi.yaml');
let prism: RunningPrism;

beforeAll(async () => {
  const doc = loadSpec();
  const example = doc.components?.examples?.WalkList as { value: { data: Record<string, unknown>[] } };
  const first = example.value.data[0];
  if (!first) throw new Error('the WalkList example has no walk');
  first.undocumented_field = 'drift';
  writeFileSync(driftedSpecPath, stringify(doc));
  prism = await startPrism({ specPath: driftedSpecPath, port: await freePort() });
});

afterAll(async () => {
  await prism?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('refuses to serve an example that drifted from its schema (Prism runs with --errors)', async () => {
  const response = await request(`${prism.baseUrl}/api/v1/walks`, {
    headers: { 'x-api-key': `${KEY_PREFIX}mockkeyonlypresenceischecked` },
  });
  const text = await response.body.text();
  expect(response.statusCode).toBe(500);
  expect(text).not.toContain('"undocumented_field"');
  expect(String(response.headers['sl-violations'])).toContain('undocumented_field');
});
