/**
 * Drift: what a deployment sends beyond the spec under test, judged answer by answer from the same
 * analysis the report's drift section lists (`answerDrift` in `core/drift-analysis.ts`, made once per answer):
 * undocumented fields, statuses and content types. Advisory by default; with --strict each finding
 * fails the run. Beside them, the pairing of error codes and statuses the spec states (§7).
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { resolveRef } from '../../spec/contract.ts';
import { errorOf, requestLine } from '../core/answers.ts';
import { entryKey, EvidenceTable } from '../core/evidence.ts';
import { either } from '../core/state.ts';
import type { Observation } from '../core/observation.ts';
import { hasBody } from '../core/observation.ts';
import type { Across, Judgement, Rule, RuleContext } from '../core/rule.ts';
import { breaks, holds } from '../core/rule.ts';
import { roleOf } from '../core/roles.ts';
import type { SpecModel } from '../core/spec-model.ts';
import { answerDrift, type DriftRuleIds } from '../core/drift-analysis.ts';
import type { DriftKind } from '../core/report-model.ts';

/** The drift of an answer of a documented operation with a body; undefined for any other exchange. */
function driftOf(obs: Observation, spec: SpecModel) {
  const { op } = obs;
  if (!op || obs.bodyless || obs.exchange.request.method === 'HEAD') return undefined;
  return answerDrift(obs.exchange, {
    contract: spec.contract,
    closedContract: spec.closedContract,
    operations: { operationOf: () => op },
  });
}

/** One verdict per difference of this kind in the answer (`listWalks 200 /data/*\/region: not documented`), or holds. */
function judgeDrift(kind: DriftKind, obs: Observation, spec: SpecModel): Judgement[] | undefined {
  const drift = driftOf(obs, spec);
  if (!drift) return undefined;
  const mine = drift.differences.filter((difference) => difference.kind === kind);
  if (mine.length === 0) return [holds(obs)];
  return mine.map(({ where, message }) =>
    breaks(`${drift.operationId} ${drift.status}${kind === 'status' ? '' : ` ${where}`}: ${message}`, obs),
  );
}

/**
 * The rule that judges each kind of difference the drift analysis finds, as the report's drift
 * section names it: the DRIFT rules (advisory, failures under --strict), ENVELOPE-005 (every body
 * matches its schema) and ENVELOPE-004 (an answer that is not JSON).
 */
export const DRIFT_RULE_IDS: DriftRuleIds = {
  kinds: { field: 'DRIFT-001', status: 'DRIFT-002', 'content-type': 'DRIFT-003', schema: 'ENVELOPE-005' },
  notJson: 'ENVELOPE-004',
};

export const driftRules: Rule[] = [
  {
    id: DRIFT_RULE_IDS.kinds.field,
    section: '§2, §4.1',
    title: 'No undocumented fields in any response object',
    area: 'drift',
    level: 'advisory',
    drift: true,
    owasp: ['API3:2023'],
    mock: 'run',
    expected: 'only the fields the spec documents',
    hint: 'Remove the field, or document it in the spec first.',
    judge: (obs, ctx) => judgeDrift('field', obs, ctx.spec),
  },
  {
    id: DRIFT_RULE_IDS.kinds.status,
    section: '§7',
    title: 'No undocumented status codes on the documented operations',
    area: 'drift',
    level: 'advisory',
    drift: true,
    owasp: ['API3:2023'],
    mock: 'run',
    expected: 'only the statuses the spec documents for each operation',
    hint: 'Answer with the statuses the spec documents for the operation, or document the new one first.',
    judge(obs, ctx) {
      const { op } = obs;
      const status = obs.exchange.response?.status;
      // A recording without the body still shows the status (a HEAD's is the deployment's choice, D-HEAD).
      if (op && status !== undefined && obs.bodyless && obs.exchange.request.method !== 'HEAD') {
        return ctx.spec.contract.documentsStatus(op.operationId, status)
          ? holds(obs)
          : breaks(`${op.operationId} ${status}: not documented for this operation`, obs);
      }
      return judgeDrift('status', obs, ctx.spec);
    },
  },
  {
    id: DRIFT_RULE_IDS.kinds['content-type'],
    section: '§4',
    title: 'No undocumented content types on the documented operations',
    area: 'drift',
    level: 'advisory',
    drift: true,
    owasp: ['API3:2023'],
    mock: 'run',
    expected: 'only the content types the spec documents',
    hint: 'Send the content type the spec documents (application/json).',
    judge: (obs, ctx) => judgeDrift('content-type', obs, ctx.spec),
  },
];

/** §7's pairs, on every error answer under the API: an envelope rule, judged beside drift. */
export const codePairingRules: Rule[] = [
  {
    id: 'ENVELOPE-014',
    section: '§5.6, §4.3 rule 1, §7',
    title:
      'Each error code the spec states comes with its status; on its operations, a valid key meets each such status with its code',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    unit: 'error answers',
    expected:
      'the codes the spec states (forbidden, not_found) only with their statuses (403, 404), and those statuses to a valid key only with those codes',
    hint: 'Answer each refusal the spec states exactly as it pairs them: a missing scope is 403 forbidden, an unknown item 404 not_found.',
    judge(obs, ctx) {
      const response = obs.exchange.response;
      if (!response || response.status < 400 || (!obs.op && !obs.inApi)) return undefined;
      if (obs.bodyless || !hasBody(obs.exchange.request.method, response) || response.json === undefined) {
        return undefined;
      }
      const pairs = statedPairs(ctx.spec);
      const { status } = response;
      const code = errorOf(response).code;
      const statuses = typeof code === 'string' ? pairs.statusesOf.get(code) : undefined;
      // Other conditions (a revoked key, a planned path) may take these statuses with codes of
      // their own (§5.8, §4.4); the spec's conditions are those of its operations asked with a
      // valid key (one that lacks the scope included: that is the 403's condition).
      const codes = obs.op && validKey(obs) ? pairs.codesOf.get(status) : undefined;
      // A key the run does not know (a recording's) is judged once the recording shows it valid.
      if (!codes && obs.op && obs.credential.kind === 'recorded' && pairs.codesOf.has(status) && !statuses) {
        return undefined;
      }
      if (!codes && !statuses) return undefined;
      if (statuses && !statuses.has(status)) {
        const wanted = [...statuses].join(' or ');
        return breaks(
          `${requestLine(obs)}: error.code "${String(code)}" with status ${status}, not ${wanted}`,
          obs,
        );
      }
      if (codes && (typeof code !== 'string' || !codes.has(code))) {
        const wanted = quoted(codes);
        return breaks(
          `${requestLine(obs)}: ${status} with error.code ${JSON.stringify(code)}, not ${wanted}`,
          obs,
        );
      }
      return holds(obs);
    },
    across: { judge: (ctx) => recordedKeyPairs(ctx) },
  },
];

/** Findings held back at most, per run, while a recorded key is not yet shown valid (the earliest). */
const MAX_PENDING = 500;

/** A verdict held back until the recording shows whether its key is valid. */
interface Pending {
  key: string;
  /** The problem, when the answer broke the pairing. */
  problem?: string;
}

/**
 * The status-to-code half of ENVELOPE-014 for keys a recording names but the run does not know: a
 * key that was answered with data somewhere is valid, and its answers with a stated status must
 * carry the stated code; a key never answered with data may be refused any way.
 */
function recordedKeyPairs(ctx: RuleContext): Across {
  const valid = ctx.state.table<boolean>('ENVELOPE-014 valid keys', either);
  const pending = ctx.state.table<Pending>('ENVELOPE-014 pending', (kept) => kept);
  const evidence = new EvidenceTable(ctx.state, 'ENVELOPE-014 evidence', MAX_PENDING);
  let held = 0;
  return {
    see(obs) {
      const credential = obs.credential;
      const response = obs.exchange.response;
      if (credential.kind !== 'recorded' || !obs.op || !response) return;
      if (response.status >= 200 && response.status <= 299) {
        if (!valid.get(credential.id)) valid.set(credential.id, true);
        return;
      }
      const codes = statedPairs(ctx.spec).codesOf.get(response.status);
      if (!codes || obs.bodyless || response.json === undefined) return;
      const code = errorOf(response).code;
      const statuses = typeof code === 'string' ? statedPairs(ctx.spec).statusesOf.get(code) : undefined;
      if (statuses || held++ >= MAX_PENDING) return;
      const key = entryKey(obs);
      pending.set(
        key,
        typeof code === 'string' && codes.has(code)
          ? { key: credential.id }
          : {
              key: credential.id,
              problem: `${requestLine(obs)}: ${response.status} with error.code ${JSON.stringify(code)}, not ${quoted(codes)}`,
            },
      );
      evidence.keep(key, obs);
    },
    *finish() {
      let n = 0;
      for (const [at, { key, problem }] of pending.entries()) {
        if (n++ === MAX_PENDING) return;
        if (!valid.get(key)) continue;
        const obs = evidence.get(at);
        yield problem === undefined ? holds(obs) : breaks(problem, obs);
      }
    },
  };
}

/** A configured key that still works, whatever its scopes. */
const validKey = (obs: Observation) => obs.credential.kind === 'key' && roleOf(obs.credential.key).valid;

const quoted = (codes: ReadonlySet<string>) => [...codes].map((code) => `"${code}"`).join(' or ');

/** The codes and statuses the spec pairs as requirements, both ways. */
export interface StatedPairs {
  statusesOf: Map<string, Set<number>>;
  codesOf: Map<number, Set<string>>;
}

const pairsOfSpec = new WeakMap<SpecModel, StatedPairs>();

/**
 * The error codes of the documented error answers with the status each is documented under,
 * leaving out the answers the spec marks "project decision" (its own convention for what the
 * written spec leaves open): a deployment may choose another status for those.
 */
export function statedPairs(spec: SpecModel): StatedPairs {
  const known = pairsOfSpec.get(spec);
  if (known) return known;
  const pairs: StatedPairs = { statusesOf: new Map(), codesOf: new Map() };
  for (const op of spec.operations) {
    for (const status of op.statuses) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const response = resolveRef<OpenAPIV3_1.ResponseObject>(spec.doc, op.definition.responses?.[status]);
      if (/project decision/i.test(response?.description ?? '')) continue;
      for (const code of spec.codesOf(op, Number(status))) {
        add(pairs.statusesOf, code, Number(status));
        add(pairs.codesOf, Number(status), code);
      }
    }
  }
  pairsOfSpec.set(spec, pairs);
  return pairs;
}

function add<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key) ?? new Set<V>();
  set.add(value);
  map.set(key, set);
}
