/**
 * `spec/accepted-changes.yaml`: the breaking changes the API team has decided to make. Each entry
 * names a change by its stable id (see `change-id.ts`), says why, and ends: on a date
 * (`expires: YYYY-MM-DD`) or with a spec version (`spec-version: X`, the new spec's `info.version`
 * it holds for). An accepted break passes the gate; an entry that matches no breaking change, or
 * has ended, fails it, as a stale expected failure does in the conformance suite.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { SpecDiffError } from './errors.ts';
import { isObject } from '../json-value.ts';
import type { Acknowledgement, AcknowledgementProblem, GateResult, SpecDiff } from './types.ts';

const ACKNOWLEDGEMENTS_FILE_NAME = 'accepted-changes.yaml';
const ENTRY_KEYS = new Set(['id', 'reason', 'expires', 'spec-version']);
const ID_SHAPE = /^\S[^@]*@\S.*$/;
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** The acknowledgement file kept next to a spec file. */
export function acknowledgementsBeside(specPath: string): string {
  return join(dirname(specPath), ACKNOWLEDGEMENTS_FILE_NAME);
}

/**
 * Reads and checks the file. A missing file acknowledges nothing, unless it was named on purpose
 * (`mustExist`: a mistyped `--accepted` must not pass silently). Any defect is one line, exit 2.
 */
export function loadAcknowledgements(path: string, options: { mustExist?: boolean } = {}): Acknowledgement[] {
  if (!existsSync(path)) {
    if (options.mustExist) throw new SpecDiffError('invalid_acknowledgements', `${path}: no such file.`);
    return [];
  }
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw invalid(path, `is not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  if (doc === null || doc === undefined) return [];
  if (!isObject(doc) || Object.keys(doc).some((key) => key !== 'accepted')) {
    throw invalid(path, 'must be a mapping with one key, `accepted`, holding a list of entries');
  }
  if (doc.accepted === null || doc.accepted === undefined) return [];
  if (!Array.isArray(doc.accepted)) throw invalid(path, '`accepted` must be a list of entries');
  const entries = doc.accepted.map((entry, i) => checkEntry(path, entry, i + 1));
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.id)) throw invalid(path, `lists ${entry.id} twice`);
    seen.add(entry.id);
  }
  return entries;
}

function checkEntry(path: string, entry: unknown, n: number): Acknowledgement {
  if (!isObject(entry))
    throw invalid(path, `entry ${n} is not a mapping (id, reason, expires or spec-version)`);
  const problem = (text: string) =>
    invalid(path, `entry ${n}${typeof entry.id === 'string' ? ` (${entry.id})` : ''} ${text}`);
  const unknown = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
  if (unknown.length > 0) throw problem(`has unknown key ${unknown.map((key) => `\`${key}\``).join(', ')}`);
  if (typeof entry.id !== 'string' || !ID_SHAPE.test(entry.id)) {
    throw problem('needs an `id` shaped RULE@PLACE, copied from the spec:diff report');
  }
  if (typeof entry.reason !== 'string' || entry.reason.trim() === '') throw problem('needs a `reason`');
  const ends = [entry.expires, entry['spec-version']].filter((end) => end !== undefined);
  if (ends.length !== 1) throw problem('needs exactly one of `expires: YYYY-MM-DD` and `spec-version: X`');
  const checked: Acknowledgement = { id: entry.id, reason: entry.reason.trim() };
  if (entry.expires !== undefined) {
    if (typeof entry.expires !== 'string' || !isCalendarDate(entry.expires)) {
      throw problem(`has \`expires: ${String(entry.expires)}\`; write a date as YYYY-MM-DD`);
    }
    checked.expires = entry.expires;
  } else {
    if (typeof entry['spec-version'] !== 'string' || entry['spec-version'].trim() === '') {
      throw problem('has a `spec-version` that is not a string; quote it ("1.1.0")');
    }
    checked.specVersion = entry['spec-version'];
  }
  return checked;
}

/**
 * The gate: every breaking change accepted by a live entry, and no entry stale or ended.
 * `today` is `YYYY-MM-DD` (UTC); an entry with `expires: today` still holds today.
 */
export function applyAcknowledgements(
  diff: SpecDiff,
  entries: Acknowledgement[],
  options: { file?: string; today: string },
): GateResult {
  const breaking = new Set(diff.changes.filter((c) => c.classification === 'breaking').map((c) => c.id));
  const known = new Set(diff.changes.map((c) => c.id));
  const accepted: Record<string, Acknowledgement> = {};
  const problems: AcknowledgementProblem[] = [];
  for (const entry of entries) {
    const ended = endOf(entry, diff.headVersion, options.today);
    if (ended) problems.push({ id: entry.id, problem: 'expired', message: ended });
    else if (breaking.has(entry.id)) accepted[entry.id] = entry;
    else {
      const message = known.has(entry.id)
        ? 'matches a change that is not breaking: nothing to accept; remove the entry.'
        : 'matches no change between the old and the new spec: remove the entry.';
      problems.push({ id: entry.id, problem: 'stale', message });
    }
  }
  const pass = problems.length === 0 && [...breaking].every((id) => accepted[id] !== undefined);
  return {
    ...diff,
    ...(options.file ? { acknowledgements: options.file } : {}),
    accepted,
    problems,
    gate: pass ? 'pass' : 'fail',
  };
}

function endOf(entry: Acknowledgement, headVersion: string, today: string): string | undefined {
  if (entry.expires !== undefined && entry.expires < today) {
    return `expired on ${entry.expires}: make the change acceptable again with a new date, or remove the entry.`;
  }
  if (entry.specVersion !== undefined && entry.specVersion !== headVersion) {
    return `holds for spec version ${entry.specVersion}, and the new spec is ${headVersion || 'unversioned'}.`;
  }
  return undefined;
}

export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

function isCalendarDate(text: string): boolean {
  if (!DATE_SHAPE.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

function invalid(path: string, text: string): SpecDiffError {
  return new SpecDiffError('invalid_acknowledgements', `${path} ${text}.`);
}
