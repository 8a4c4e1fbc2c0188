import { describe, expect, it } from 'vitest';
import { childrenCpuS, linesByFolder, testsOf } from '../test-figures.ts';

describe('what bench:tests reads', () => {
  it("counts vitest's closing summary, colours and all, failures included, and nothing without one", () => {
    const summary =
      '\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[31m3 failed\u001b[39m | 1298 passed (1301)\n';
    expect(testsOf(`Test Files  2 failed | 115 passed (117)\n${summary}`)).toEqual({
      tests: 1301,
      failed: 3,
    });
    expect(testsOf('      Tests  490 passed (490)\n')).toEqual({ tests: 490, failed: 0 });
    expect(testsOf('Test Files  35 passed (35)\n')).toBeUndefined();
  });

  it('counts lines by top-level folder, tests and generated files apart, tools/ as one folder', () => {
    const commit = 'abc123';
    const rows = [
      `${commit}:reference-server/app.ts:70`,
      `${commit}:reference-server/test/harness.ts:200`,
      `${commit}:reference-server/test/app.test.ts:30`,
      `${commit}:tools/bench/tests-main.ts:12`,
      `${commit}:tools/soak/test/soak.process.test.ts:8`,
      `${commit}:spec/generated/openapi.d.ts:5`,
      `${commit}:vitest.config.ts:40`,
      'other:reference-server/app.ts:1000',
    ].join('\n');
    expect(linesByFolder(rows, commit)).toEqual({
      'reference-server/': { source: 70, tests: 230, generated: 0 },
      'tools/': { source: 12, tests: 8, generated: 0 },
      'spec/': { source: 0, tests: 0, generated: 5 },
      '.': { source: 40, tests: 0, generated: 0 },
    });
  });

  it('takes the CPU of waited-for children from /proc/self/stat, a command name with spaces and brackets included', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i));
    fields[13] = '250';
    fields[14] = '50';
    expect(childrenCpuS(`1234 (node (x) y) ${fields.join(' ')}`, 100)).toBe(3);
    expect(() => childrenCpuS('1234 (node) S 1', 100)).toThrow(/no child CPU/);
  });
});
