/**
 * Small builders the checks share, so every check reads as its rule and nothing else. Part of the
 * ground floor: it imports nothing of the suite but its vocabulary (`../types.ts`).
 */
import type { ContractValidator } from '../../spec/contract.ts';
import { statusOfError } from '../../spec/facts.ts';
import type { Exchange, Judged, Outcome, ResponseData, Status } from '../types.ts';
import { overCap } from '../types.ts';

/** What the envelope helpers need of a check's context. */
interface Judge {
  readonly contract: ContractValidator;
}

interface Extra {
  hint?: string;
  details?: string[];
  differs?: Outcome['differs'];
}

function outcome(
  status: Status,
  expected: string,
  actual: string,
  exchange?: Exchange,
  extra?: Extra,
): Outcome {
  const result: Outcome = { status, expected, actual };
  if (exchange) result.exchange = exchange;
  if (extra?.hint) result.hint = extra.hint;
  if (extra?.details?.length) result.details = extra.details.slice(0, MAX_DETAILS);
  if (extra?.differs) result.differs = extra.differs;
  return result;
}

/** Every finding goes to the details (a failure on each of 200 walks lists all of them). */
const MAX_DETAILS = 500;
/** How many findings the one-line `actual` names before "and N more". */
const SHOWN_IN_ACTUAL = 3;

export const pass = (expected: string, actual: string, exchange?: Exchange, extra?: Extra): Outcome =>
  outcome('pass', expected, actual, exchange, extra);
export const fail = (expected: string, actual: string, exchange?: Exchange, extra?: Extra): Outcome =>
  outcome('fail', expected, actual, exchange, extra);
export const advisory = (expected: string, actual: string, exchange?: Exchange, extra?: Extra): Outcome =>
  outcome('advisory', expected, actual, exchange, extra);
export const inconclusive = (expected: string, actual: string, exchange?: Exchange): Outcome =>
  outcome('inconclusive', expected, actual, exchange);
export const skipped = (expected: string, reason: string): Outcome => outcome('skip', expected, reason);

/** Pass or fail on a list of problems: the first few are the `actual`, all of them the details. */
export function verdict(expected: string, problems: string[], passed: string, exchange?: Exchange): Outcome {
  if (problems.length === 0) return pass(expected, passed, exchange);
  const shown = problems.slice(0, SHOWN_IN_ACTUAL).join('; ');
  const rest = problems.length - SHOWN_IN_ACTUAL;
  return fail(expected, `${shown}${rest > 0 ? ` (and ${rest} more)` : ''}`, exchange, { details: problems });
}

/** The outcome with what it judged, for the coverage section. */
export function counted(result: Outcome, judged: Judged): Outcome {
  return { ...result, judged };
}

/**
 * The outcome when an exchange got no answer at all: a budget that ran out means the data could not
 * show it (inconclusive); anything else (timeout, refused, reset, garbage) is a failure.
 */
export function noAnswer(expected: string, exchange: Exchange): Outcome | undefined {
  if (exchange.response) return undefined;
  const error = exchange.error ?? { kind: 'network', message: 'no answer' };
  const actual = `no usable answer to ${exchange.request.method} ${exchange.request.url}: ${error.message}`;
  if (error.kind === 'budget') return inconclusive(expected, actual, exchange);
  // Larger than the cap: not judged, and the run says so (exit 2 unless a required check failed).
  if (overCap(error)) return inconclusive(expected, `${actual}: not judged`, exchange);
  return fail(expected, actual, exchange, {
    hint: 'The target must answer every request completely within the timeout, as valid HTTP.',
  });
}

/** Characters of a body a report shows of an answer (the rest is cut, and the cut marked). */
export const EXCERPT_CHARS = 500;

/** The start of a body as reports show it. */
export const excerpt = (body: string) =>
  body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body;

/** One line saying what came back: status, content type and the start of the body. */
export function describe(response: ResponseData | undefined): string {
  if (!response) return 'no answer';
  const type = response.contentType ?? 'no content type';
  const body = response.body.length > 160 ? `${response.body.slice(0, 160)}…` : response.body;
  return `${response.status} (${type})${body ? ` ${body.replace(/\s+/g, ' ')}` : ' with an empty body'}`;
}

/** Why a body is not the error envelope `{ok:false,error:{code,message}}`, or undefined when it is. */
export function errorEnvelopeProblem(ctx: Judge, response: ResponseData): string | undefined {
  if (response.jsonError) return `the body is ${response.jsonError}`;
  if (response.json === undefined) return 'the body is empty, not the error envelope';
  const result = ctx.contract.validateSchema('ErrorEnvelope', response.json);
  return result.valid ? undefined : `not the error envelope: ${result.errors.slice(0, 3).join('; ')}`;
}

export function isClientError(status: number): boolean {
  return status >= 400 && status <= 499;
}

export function errorOf(response: ResponseData): { code?: unknown; message?: unknown } {
  const body = response.json as { error?: { code?: unknown; message?: unknown } } | undefined;
  return body?.error ?? {};
}

/** Required for the refusals whose exact status the spec leaves open: some 4xx in the error envelope. */
export function refusedWithEnvelope(ctx: Judge, exchange: Exchange, what: string): Outcome {
  const expected = `${what}: a 4xx answer in the error envelope`;
  const missing = noAnswer(expected, exchange);
  if (missing) return missing;
  const response = exchange.response as ResponseData;
  if (!isClientError(response.status)) return fail(expected, `answered ${describe(response)}`, exchange);
  const problem = errorEnvelopeProblem(ctx, response);
  if (problem) return fail(expected, `${response.status}, ${problem}`, exchange);
  if ((response.json as { data?: unknown }).data !== undefined) {
    return fail(expected, `${response.status}, but data came back with the refusal`, exchange);
  }
  return pass(expected, `${response.status} ${String(errorOf(response).code)}`, exchange);
}

/**
 * A refusal as reports name it, `401 unauthorized`: an error code the spec names, with the status
 * the spec gives it (`spec/facts.ts`), so no check writes a status beside a code by hand.
 */
export function refusal(code: string): string {
  return `${statusOfError(code)} ${code}`;
}

/** What a check expects of the refusal with this code: `404 with error.code "not_found"`. */
export function expectedRefusal(code: string): string {
  return `${statusOfError(code)} with error.code "${code}"`;
}

/** Whether an answer is the refusal with this code, at the status the spec gives the code. */
export function answersAs(response: ResponseData, code: string): boolean {
  return response.status === statusOfError(code) && errorOf(response).code === code;
}

/**
 * Advisory: reports the status and code a deployment chose where the spec leaves it open, against
 * the project's decision, the refusal `code` (`more` adds to its description).
 */
export function reportChoice(exchange: Exchange, code: string, more = ''): Outcome {
  const expected = `project decision: ${refusal(code)}${more} (any 4xx envelope is conformant)`;
  if (!exchange.response) return inconclusive(expected, exchange.error?.message ?? 'no answer', exchange);
  const chose = errorOf(exchange.response).code;
  const answered = `${exchange.response.status}${typeof chose === 'string' ? ` ${chose}` : ''}`;
  return advisory(expected, `this deployment answers ${answered}`, exchange, {
    differs: !answersAs(exchange.response, code),
  });
}
