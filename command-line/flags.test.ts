import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { CommandSpec } from './flags.ts';
import {
  choiceFlag,
  choiceListFlag,
  editDistance,
  helpText,
  integerFlag,
  nearest,
  numberFlag,
  optionsOrExit,
  packagedVersion,
  portFlag,
  rateLimitFlag,
  readEnvFile,
  readFlags,
  UsageError,
  usageMessage,
  withEnvFile,
} from './flags.ts';

const COMMAND = {
  name: 'demo',
  usage: 'npm run demo -- [options] FILE',
  summary: 'Does the demo.',
  positionals: 'FILE',
  flags: {
    'base-url': { type: 'string', value: 'URL', help: 'Where to look\nsecond line of help' },
    strict: { type: 'boolean', help: 'Be strict' },
    only: { type: 'string', multiple: true, value: 'ID', help: 'Only these' },
    'max-requests': { type: 'string', value: 'N', help: 'Budget' },
  },
  sections: [{ title: 'Exit status', text: '0 fine, 2 unusable' }],
} as const satisfies CommandSpec;

const mistake = (argv: string[]) => {
  try {
    readFlags(COMMAND, argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
};

const dir = mkdtempSync(join(tmpdir(), 'flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reading flags', () => {
  it('reads strings, booleans, repeated flags, = values and positionals', () => {
    const { values, positionals } = readFlags(COMMAND, [
      '--base-url=http://x',
      '--strict',
      '--only',
      'A',
      '--only',
      'B',
      'file.yaml',
    ]);
    expect(values).toEqual({ 'base-url': 'http://x', strict: true, only: ['A', 'B'] });
    expect(positionals).toEqual(['file.yaml']);
  });

  it.each([
    [['--bsae-url', 'x'], 'unknown flag --bsae-url (did you mean --base-url?)'],
    [['--max-request', '5'], 'unknown flag --max-request (did you mean --max-requests?)'],
    [['--stric'], 'unknown flag --stric (did you mean --strict?)'],
    [['--colour'], 'unknown flag --colour'],
    [['-x'], 'unknown flag -x'],
    [['--base-url'], '--base-url needs a value'],
    [['--strict=yes'], '--strict takes no value'],
  ])('refuses %j: %s', (argv, message) => {
    expect(mistake(argv)).toBe(message);
  });

  it('refuses positionals when the command takes none', () => {
    expect(() => readFlags({ ...COMMAND, positionals: undefined }, ['extra'])).toThrow(
      'unexpected argument "extra"',
    );
  });

  it('drops one leading -- (npm scripts end with one, against Node 20 reading --env-file)', () => {
    expect(readFlags(COMMAND, ['--', '--strict', 'f']).values.strict).toBe(true);
    expect(readFlags(COMMAND, ['--', '--', '--strict']).positionals).toEqual(['--strict']);
    expect(readFlags(COMMAND, ['f', '--', '--strict']).positionals).toEqual(['f', '--strict']);
  });

  it('takes a negative number as the value, for the flag to judge like any other', () => {
    expect(readFlags(COMMAND, ['--max-requests', '-5']).values['max-requests']).toBe('-5');
    const raw = readFlags(COMMAND, ['--max-requests', '-5']).values['max-requests'];
    expect(() => integerFlag('--max-requests', raw, { min: 1, max: 9 }, 4)).toThrow(
      '--max-requests must be an integer from 1 to 9, not "-5"',
    );
    expect(mistake(['--base-url', '-x'])).toBe('--base-url needs a value');
    expect(mistake(['--strict', '-5'])).toBe('unknown flag -5');
  });

  it('gives every command --help and -h', () => {
    expect(readFlags(COMMAND, ['-h']).values.help).toBe(true);
    expect(readFlags(COMMAND, ['--help']).values.help).toBe(true);
  });
});

describe('values', () => {
  it('checks integers within bounds and falls back when absent', () => {
    expect(integerFlag('--n', undefined, { min: 1, max: 9 }, 4)).toBe(4);
    expect(integerFlag('--n', '9', { min: 1, max: 9 }, 4)).toBe(9);
    for (const raw of ['abc', '0', '10', '-1', '1.5', ''])
      expect(() => integerFlag('--n', raw, { min: 1, max: 9 }, 4)).toThrow(
        `--n must be an integer from 1 to 9, not ${JSON.stringify(raw)}`,
      );
  });

  it('checks decimal numbers, ports and rates with the same wording', () => {
    expect(numberFlag('--s', '1.25', { min: 0, max: 600 }, 1)).toBe(1.25);
    expect(numberFlag('--s', '0', { min: 0, max: 600 }, 1)).toBe(0);
    expect(() => numberFlag('--s', '0', { min: 0, max: 600, above: true }, 1)).toThrow(
      '--s must be a number above 0 up to 600, not "0"',
    );
    expect(() => numberFlag('--s', '1e3', { min: 0, max: 600 }, 1)).toThrow(
      '--s must be a number from 0 to 600, not "1e3"',
    );
    expect(portFlag('--port', '0', 8080)).toBe(0);
    expect(portFlag('--port', undefined, 8080)).toBe(8080);
    expect(() => portFlag('--port', '65536', 8080)).toThrow(
      '--port must be an integer from 0 to 65535, not "65536"',
    );
    expect(() => rateLimitFlag('--rate-limit', '0/min')).toThrow(/--rate-limit must be .*, not "0\/min"$/);
  });

  it('checks a comma list of choices', () => {
    expect(choiceListFlag('--skip', 'a, b,,a', ['a', 'b', 'c'])).toEqual(['a', 'b']);
    expect(() => choiceListFlag('--skip', 'a,d', ['a', 'b'])).toThrow('--skip must be one of a, b, not "d"');
  });

  it('checks a choice and names the nearest one', () => {
    expect(choiceFlag('--reporter', 'json', ['json', 'junit'] as const)).toBe('json');
    expect(() => choiceFlag('--reporter', 'jsno', ['json', 'junit'])).toThrow(
      '--reporter must be one of json, junit, not "jsno" (did you mean json?)',
    );
    expect(() => choiceFlag('--reporter', 'xml', ['json', 'html'])).toThrow(/not "xml"$/);
  });

  it('finds near words and leaves far ones alone', () => {
    expect(editDistance('auth', 'auht')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(nearest('timeuot', ['timeout', 'seed'])).toBe('timeout');
    expect(nearest('verbosity', ['timeout', 'seed'])).toBeUndefined();
  });
});

describe('env files', () => {
  it('reads dotenv lines; the environment wins', () => {
    const file = join(dir, '.env');
    writeFileSync(file, '# demo\nA=1\nexport B="two words"\n  C = \'3\'\nnot a line\n');
    expect(readEnvFile(file)).toEqual({ A: '1', B: 'two words', C: '3' });
    expect(withEnvFile(file, { A: 'env' })).toEqual({ A: 'env', B: 'two words', C: '3' });
    expect(withEnvFile(undefined, { A: 'env' })).toEqual({ A: 'env' });
  });

  it('says a missing file is missing, in its own words', () => {
    const missing = join(dir, 'nope.env');
    expect(() => readEnvFile(missing)).toThrow(new UsageError(`env file not found: ${missing}`));
  });
});

describe('help and messages', () => {
  it('lays out every command the same way', () => {
    expect(helpText(COMMAND)).toBe(
      [
        'Usage: npm run demo -- [options] FILE',
        '',
        'Does the demo.',
        '',
        'Options:',
        '  --base-url URL          Where to look',
        '                          second line of help',
        '  --strict                Be strict',
        '  --only ID               Only these',
        '  --max-requests N        Budget',
        '  -h, --help              This text',
        '',
        'Exit status:',
        '0 fine, 2 unusable',
        '',
      ].join('\n'),
    );
  });

  it('prints a mistake in two lines', () => {
    expect(usageMessage('demo', new UsageError('unknown flag --x'))).toBe(
      'demo: unknown flag --x\nRun with --help for the options.\n',
    );
  });
});

describe('--version', () => {
  const VERSIONED = { ...COMMAND, version: 'demo 1.2.3 (Demo API 1.2.3)' };

  it('is a flag only of a command that has a version, listed in its help', () => {
    expect(readFlags(VERSIONED, ['--version']).values.version).toBe(true);
    expect(mistake(['--version'])).toBe('unknown flag --version');
    expect(helpText(VERSIONED)).toContain('\n  --version               Print the version and exit\n');
    expect(helpText(COMMAND)).not.toContain('--version');
  });

  it('is not told in the repository, which has no package version', () => {
    expect(packagedVersion('demo')).toBeUndefined();
  });

  it('prints the version line and ends with 0 without asking the command', () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const parse = vi.fn(() => 'help' as const);
      expect(optionsOrExit(VERSIONED, ['--version'], parse)).toBe(0);
      expect(out).toHaveBeenCalledWith('demo 1.2.3 (Demo API 1.2.3)\n');
      expect(parse).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('optionsOrExit', () => {
  const parse = (argv: string[]) => {
    const { values } = readFlags(COMMAND, argv);
    return values.help ? ('help' as const) : values;
  };

  it('gives the options, writing nothing', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(optionsOrExit(COMMAND, ['--strict'], parse)).toEqual({ strict: true });
      expect(err).not.toHaveBeenCalled();
      expect(out).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('ends a usage mistake with 2 and the usage message, and --help with 0 and the help', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(optionsOrExit(COMMAND, ['--strikt'], parse)).toBe(2);
      expect(err).toHaveBeenCalledWith(usageMessage('demo', new Error(mistake(['--strikt']))));
      expect(optionsOrExit(COMMAND, ['--help'], parse)).toBe(0);
      expect(out).toHaveBeenCalledWith(helpText(COMMAND));
    } finally {
      vi.restoreAllMocks();
    }
  });
});
