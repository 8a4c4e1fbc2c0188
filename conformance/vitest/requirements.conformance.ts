/**
 * Runs the suite once against the configured target (or the embedded reference server) and maps
 * every requirement to a test: fail → a failed test with expected, actual, hint and curl; skip and
 * not judged → a skipped test with the reason; pass and advisory → a passed test.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RULES } from '../rules/registry.ts';
import { resolveTarget } from '../run/target.ts';
import { parseCli } from '../cli/config.ts';
import type { Redactor } from '../core/redact.ts';
import { preflight } from '../run/preflight/preflight.ts';
import { reachSecrets } from '../transport/reach.ts';
import { redactorFor } from '../core/redact.ts';
import { runLive } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { AREAS } from '../core/report-model.ts';

let report: Report;
let redact: Redactor = (text) => text;
let stop: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const options = parseCli([], process.env);
  const target = await resolveTarget(options.config);
  stop = target.close;
  redact = redactorFor(target.config.keys, options.config.keys, reachSecrets(options.config.reach));
  // The CLI's pre-flight too: a setup problem (a certificate, a proxy, a gateway) is one error, not every test failing.
  report = (await runLive(target.config, RULES, preflight)).report;
  if (report.unreachable) throw new Error(redact(report.unreachable));
});

afterAll(async () => {
  await stop();
});

for (const area of AREAS) {
  describe(area, () => {
    for (const check of RULES.filter((c) => c.area === area)) {
      it(`${check.id} ${check.title}`, async (ctx) => {
        const result = report.results.find((r) => r.id === check.id);
        if (!result) return ctx.skip('not selected');
        if (result.status === 'skip' || result.status === 'not-judged') {
          return ctx.skip(redact(`${result.status}: ${result.reason ?? ''}`));
        }
        if (result.status === 'advisory') await ctx.annotate(redact(`advisory: ${result.actual}`));
        if (result.status === 'fail') {
          const lines = [
            `${result.id} [${result.effectiveLevel}, ${result.section}]`,
            `expected: ${result.expected}`,
            `actual:   ${result.actual}`,
            ...(result.hint ? [`hint:     ${result.hint}`] : []),
            ...(result.details ?? []).map((d) => `  - ${d}`),
            ...(result.request ? [`reproduce: ${result.request.curl}`] : []),
          ];
          throw new Error(redact(lines.join('\n')));
        }
      });
    }
  });
}
