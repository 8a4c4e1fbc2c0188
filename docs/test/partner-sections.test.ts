/**
 * The partner sections of the reference page (docs/sections.ts): every error the spec names with
 * its status and what to do, decisions that exist, a change log that keeps up with the spec's
 * version, and links the sandbox answers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { loadSpec } from '../../spec/contract.ts';
import { ERROR_STATUSES } from '../../spec/facts.ts';
import { changelogOf, ERROR_ADVICE, withPartnerSections } from '../sections.ts';

const doc = loadSpec();
const description = withPartnerSections(doc).info.description ?? '';
const decisionLog = readFileSync(new URL('../../spec/DECISIONS.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'changelog-'));
let server: RunningServer;

beforeAll(async () => {
  server = await startReferenceServer({ log: false });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the partner sections of the reference page', () => {
  it('has the sections partners look for, after the spec’s own description', () => {
    const headings = [...description.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'Authentication',
      'Errors',
      'Rate limiting and back-off',
      'Listing a whole campaign',
      'Versioning and change log',
      'Files for your tools',
    ]);
    expect(description.startsWith((doc.info.description ?? '').slice(0, 200))).toBe(true);
  });

  it('lists every error code of the spec with its status and what to do, and no other', () => {
    expect(Object.keys(ERROR_ADVICE).sort()).toEqual(Object.keys(ERROR_STATUSES).sort());
    for (const [code, status] of Object.entries(ERROR_STATUSES)) {
      expect(description).toMatch(new RegExp(`^\\| ${status} \\| \`${code}\` \\| \\S.+ \\|`, 'm'));
    }
  });

  it('cites only decisions the decision log has', () => {
    const cited = new Set([...description.matchAll(/\[(D-[A-Z-]+)\]/g)].map((m) => m[1]));
    expect(cited.size).toBeGreaterThan(4);
    for (const id of cited) expect(decisionLog).toContain(`| ${id} `);
  });

  it('says that v1 lists at most 200 walks with no pagination, and that offset and misspellings are ignored', () => {
    expect(description).toContain('**no pagination for walks**');
    expect(description).toContain('?offset=200');
    expect(description).toContain('?limt=5');
    expect(decisionLog).toContain('| D-PAGINATION ');
  });

  it('links only to what the server answers: the decision log, the planned endpoints, the partner files', async () => {
    const links = [...description.matchAll(/\]\((\/[^)]*)\)/g)].map((m) => m[1] ?? '');
    expect(links).toEqual(
      expect.arrayContaining(['/DECISIONS.md', '/planned.openapi.yaml', '/openapi.json']),
    );
    for (const link of new Set(links)) {
      const response = await fetch(`${server.baseUrl}${link}`);
      await response.body?.cancel();
      expect(response.status, link).toBe(200);
    }
  });

  it('makes the change log from spec/changelog.yaml, which must start at the spec’s version', () => {
    const log = changelogOf(doc.info.version);
    for (const entry of log) expect(description).toContain(`**${entry.version}** (${entry.date})`);
    const stale = join(dir, 'changelog.yaml');
    writeFileSync(stale, '- version: 0.9.0\n  date: 2026-01-01\n  changes: [old]\n');
    expect(() => changelogOf(doc.info.version, stale)).toThrow(/first entry must be the spec's info.version/);
  });
});
