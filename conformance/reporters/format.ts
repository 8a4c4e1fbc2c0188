/**
 * Formats a report for each chosen reporter. Every text leaves through the redactor, so no
 * configured key can appear in any output, whatever a target echoed back.
 */
import type { Redactor } from '../core/redact.ts';
import type { Report } from '../core/report-model.ts';
import { consoleReport } from './console.ts';
import { htmlReport } from './html.ts';
import { junitReport } from './junit.ts';

/** The reporters `--reporter` can choose; the console always prints. */
export const REPORTER_NAMES = ['console', 'junit', 'json', 'html'] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

const FORMATS: Record<ReporterName, (report: Report) => string> = {
  console: consoleReport,
  junit: junitReport,
  json: (report) => `${JSON.stringify(report, null, 2)}\n`,
  html: htmlReport,
};

export function formatReport(name: ReporterName, report: Report, redact: Redactor): string {
  return redact(FORMATS[name](report));
}
