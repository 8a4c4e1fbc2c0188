/**
 * `--redact-bodies`: what a recording's findings may say when the API's data must stay out of CI logs.
 * Findings keep ids (UUID-shaped strings), field names and paths, statuses and counts; every other
 * value read from a body (a name, a coordinate, a snippet of an answer) is withheld, and no answer
 * body is shown as evidence.
 */
import type { CheckResult, Report } from '../../core/report-model.ts';

const WITHHELD = '…';
const BODY_WITHHELD = '(body withheld: --redact-bodies)';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A JSON string and what follows it: a key when a colon follows. */
const QUOTED = /"((?:[^"\\]|\\.)*)"(\s*:)?/g;
/** A number with a fraction (a coordinate, a centroid): counts and statuses are integers. */
const FRACTION = /-?\b\d+\.\d+(?:e[+-]?\d+)?\b/gi;

/** A text with every value but ids, field names and integers withheld. */
export function withoutValues(text: string): string {
  return text
    .replace(QUOTED, (all, inner: string, colon: string | undefined) =>
      colon || UUID.test(inner) ? all : `"${WITHHELD}"`,
    )
    .replace(FRACTION, WITHHELD);
}

function withheldResult(result: CheckResult): CheckResult {
  const out: CheckResult = { ...result, actual: withoutValues(result.actual) };
  if (result.details) out.details = result.details.map(withoutValues);
  if (result.response) out.response = { ...result.response, body: BODY_WITHHELD };
  if (result.unjudged) out.unjudged = withoutValues(result.unjudged);
  return out;
}

/** The report with values from bodies withheld from every finding, drift's included. */
export function withBodiesWithheld(report: Report): Report {
  return {
    ...report,
    results: report.results.map(withheldResult),
    drift: {
      ...report.drift,
      findings: report.drift.findings.map((finding) => ({
        ...finding,
        message: withoutValues(finding.message),
      })),
    },
  };
}
