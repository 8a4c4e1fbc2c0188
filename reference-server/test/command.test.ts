/**
 * The reference server's command line in this process (`commandLine` of `command.ts`, which
 * `main.ts` runs before it serves): what it prints instead of serving, and how it refuses a bad
 * flag. `cli.process.test.ts` runs the command itself as npm runs it.
 */
import { describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { commandLine } from '../command.ts';
import { CONTRACT_NAMES, parseDotenv } from './dotenv-lines.ts';

/** The command line with `args`, as far as it goes without serving: its status and its text. */
async function main(...args: string[]): Promise<{ code: number | 'serves'; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const ended = commandLine(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code: typeof ended === 'number' ? ended : 'serves', stdout, stderr };
}

describe('reference-server command line, in process', () => {
  it('--seed changes the keys to that seed’s, and --web-base-url the base line', async () => {
    const { code, stdout } = await main(
      '--print-credentials',
      '--seed',
      '7',
      '--web-base-url',
      'https://x.example/',
    );
    expect(code).toBe(0);
    const values = parseDotenv(stdout);
    expect([...values.keys()]).toEqual(CONTRACT_NAMES);
    const seven = demoCredentials({ seed: 7 });
    const standard = demoCredentials();
    for (const [name, key] of Object.entries(seven)) {
      expect(values.get(name) === key).toBe(true);
      expect(key === standard[name as keyof typeof standard]).toBe(false);
    }
    expect(values.get('CONFORMANCE_WEB_BASE_URL')).toBe('https://x.example');
  });

  it('--help describes every flag and exits 0', async () => {
    const { code, stdout } = await main('--help');
    expect(code).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--walks',
      '--max-stops',
      '--web-base-url',
      '--print-credentials',
      '--variant',
      '--print-variant',
      '--latency',
      '--faults',
      '--fault-kinds',
      '--fault-seed',
      '--clock',
      '--clock-rate',
    ]) {
      expect(stdout).toContain(flag);
    }
  });

  it('--variant list prints the choices of seeds 1 to 8; --variant N --print-variant one of them', async () => {
    const listed = await main('--variant', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout.match(/^variant \d+:$/gm)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `variant ${n}:`),
    );
    const one = await main('--variant', '3', '--print-variant');
    expect(one.code).toBe(0);
    const block = listed.stdout.split('\n\n')[2];
    expect(one.stdout).toBe(`${block?.trimEnd()}\n`);
    expect(one.stdout).toMatch(/^ {2}missingKey +\d{3} [a-z_]+/m);
  });

  it('refuses a bad flag with exit status 2 and a message on stderr only', async () => {
    for (const args of [
      ['--port', 'eighty'],
      ['--walks', '-1'],
      ['--frobnicate'],
      ['--web-base-url', 'ftp://x'],
      ['--web-base-url', 'http://[::1]:3000'],
      ['--web-base-url', 'https://x.example/1/2/3/4/5/6/7/8/9'],
      ['--variant', '0'],
      ['--print-variant'],
      ['--latency', '300-100'],
      ['--faults', '1.5'],
      ['--faults', '0.1', '--fault-kinds', '404'],
      ['--fault-kinds', '500'],
      ['--clock-rate', '60'],
      ['--clock', '--clock-rate', '0'],
      ['--clock', '--clock-rate', 'fast'],
    ]) {
      const { code, stdout, stderr } = await main(...args);
      expect([args.join(' '), code]).toEqual([args.join(' '), 2]);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^reference-server: /);
    }
  });

  it.each(['0/min', '2/s', 'abc', '-1', '1.5/min'])(
    'refuses --rate-limit %s with exit status 2',
    async (value) => {
      const refused = await main('--rate-limit', value);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/reference-server: .*--rate-limit/);
    },
  );

  it('serves with flags it accepts, printing nothing', async () => {
    expect(await main('--port', '0', '--quiet')).toEqual({ code: 'serves', stdout: '', stderr: '' });
  });
});
