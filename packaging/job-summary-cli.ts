/** `canvassing-conformance-summary REPORT.json`: prints the job summary of a `--reporter json` report. */
import { readFileSync } from 'node:fs';
import type { Report } from '../conformance/types.ts';
import { jobSummary } from './job-summary.ts';

const file = process.argv[2];
if (file === undefined || process.argv.length > 3) {
  process.stderr.write('Usage: canvassing-conformance-summary REPORT.json (a --reporter json report)\n');
  process.exitCode = 2;
} else {
  process.stdout.write(jobSummary(JSON.parse(readFileSync(file, 'utf8')) as Report));
}
