/**
 * No configured key value ever appears in any output, even when a target echoes keys back in its
 * bodies, messages and headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../spec/facts.ts';
import { redactorFor } from '../core/redact.ts';
import { formatReport, REPORTER_NAMES } from '../reporters/format.ts';
import { runSuite } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { type Listening, listen } from '../../tools/test-support/listen.ts';
import { configFor } from './harness.ts';

const KEYS = {
  CONFORMANCE_API_KEY: 'svc_sk_live_echoPrimary+/=0000000000000000001',
  CONFORMANCE_NO_SCOPE_KEY: 'svc_sk_live_echoNoScope00000000000000000002',
  CONFORMANCE_OTHER_CAMPAIGN_KEY: 'svc_sk_live_echoOther0000000000000000000003',
  CONFORMANCE_REVOKED_KEY: 'svc_sk_live_echoRevoked00000000000000000004',
  CONFORMANCE_EMPTY_CAMPAIGN_KEY: 'svc_sk_live_echoEmpty0000000000000000000005',
};

let echo: Listening;
let report: Report;

beforeAll(async () => {
  // Echoes whatever key it got: in the body, in an error message, URL-encoded, in a header.
  echo = await listen((req, res) => {
    const key = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /, '');
    const status = req.url?.includes('limit=1') ? 200 : 401;
    res.writeHead(status, { 'content-type': 'text/plain', 'x-echo': encodeURIComponent(key) });
    res.end(
      status === 200
        ? JSON.stringify({
            ok: true,
            data: [{ id: key, name: `walk of ${encodeURIComponent(key)}` }],
            meta: { count: 1 },
          })
        : JSON.stringify({ ok: false, error: { code: 'unauthorized', message: `key ${key} is not valid` } }),
    );
  });
  report = await runSuite(configFor(echo.baseUrl, KEYS));
});

afterAll(async () => {
  await echo.close();
});

describe('redaction', () => {
  it('has the keys in the raw report, so the test can see redaction work', () => {
    expect(JSON.stringify(report)).toContain(KEYS.CONFORMANCE_API_KEY);
  });

  it('keeps every key out of every reporter’s output', () => {
    const redact = redactorFor(KEYS);
    for (const name of REPORTER_NAMES) {
      const text = formatReport(name, report, redact);
      for (const [keyName, value] of Object.entries(KEYS)) {
        expect(text, `${name} output leaks ${keyName}`).not.toContain(value);
        expect(text).not.toContain(encodeURIComponent(value));
      }
    }
    expect(formatReport('console', report, redact)).toContain('$CONFORMANCE_API_KEY');
  });

  it('replaces every form a key can take with its variable name', () => {
    const redact = redactorFor(KEYS);
    const value = KEYS.CONFORMANCE_API_KEY;
    const text = `${value} ${encodeURIComponent(value)} ${JSON.stringify({ value })}`;
    expect(redact(text)).toBe('$CONFORMANCE_API_KEY $CONFORMANCE_API_KEY {"value":"$CONFORMANCE_API_KEY"}');
  });
});

describe('redaction by whole token', () => {
  const text = [
    'curl -H "x-api-key: x" -H "Authorization: Bearer x" \'http://x.example/api/v1/walks?key=x&max=9\'',
    '{"error":{"message":"key x is not valid"},"next":"xx","exact":"x"}',
  ].join('\n');

  it('replaces a short key only where it stands alone, leaving every other letter as it was', () => {
    const redact = redactorFor({ CONFORMANCE_API_KEY: 'x' });
    expect(redact(text)).toBe(
      [
        'curl -H "x-api-key: $CONFORMANCE_API_KEY" -H "Authorization: Bearer $CONFORMANCE_API_KEY" \'http://x.example/api/v1/walks?key=$CONFORMANCE_API_KEY&max=9\'',
        '{"error":{"message":"key $CONFORMANCE_API_KEY is not valid"},"next":"xx","exact":"$CONFORMANCE_API_KEY"}',
      ].join('\n'),
    );
  });

  it('replaces the key with its letter case flipped (a near miss AUTH-014 sends), whole or cut short', () => {
    const key = `${KEY_PREFIX}AbCdEfGh0123456789ijklMNOP`;
    const flipped = `${KEY_PREFIX}aBcDeFgH0123456789IJKLmnop`;
    const redact = redactorFor({ CONFORMANCE_API_KEY: key });
    expect(redact(`echo: ${flipped}.`)).toBe('echo: $CONFORMANCE_API_KEY.');
    // Cut short: the runs it shares with the key (its digits) and the rest may be named apart.
    expect(redact(`cut: ${flipped.slice(0, 30)}…`)).toMatch(/^cut: (\$CONFORMANCE_API_KEY)+…$/);
  });

  it('leaves a text without the key byte for byte', () => {
    const redact = redactorFor({ CONFORMANCE_API_KEY: 'walk', CONFORMANCE_NO_SCOPE_KEY: 'a+b' });
    const plain = 'walks, walked, sidewalk; a+bc and ca+b stay';
    expect(redact(plain)).toBe(plain);
    expect(redact('(a+b) walk.')).toBe('($CONFORMANCE_NO_SCOPE_KEY) walk.');
  });

  it('replaces a secret-length key wherever it occurs, even glued to other characters', () => {
    const key = KEYS.CONFORMANCE_API_KEY;
    const redact = redactorFor({ CONFORMANCE_API_KEY: key });
    const glued = `location=https%3A%2F%2Fx%3Fkey%3D${encodeURIComponent(key)}abc and id${key}`;
    const out = redact(glued);
    expect(out).not.toContain(key);
    expect(out).not.toContain(encodeURIComponent(key));
    expect(out).toBe('location=https%3A%2F%2Fx%3Fkey%3D$CONFORMANCE_API_KEYabc and id$CONFORMANCE_API_KEY');
  });
});

describe('redaction of a piece of a key in a long text', () => {
  const key = KEYS.CONFORMANCE_API_KEY;
  const other = KEYS.CONFORMANCE_OTHER_CAMPAIGN_KEY;
  const redact = redactorFor({ CONFORMANCE_API_KEY: key, CONFORMANCE_OTHER_CAMPAIGN_KEY: other });
  // Megabytes of ordinary text, like a --har file's bodies: a piece must be found anywhere in it.
  const line = '{"id":"wk_0123456789abcdef","name":"Elm Street","stops":[1,2,3]},';
  const filler = line.repeat(1_000);

  it('leaves a long text without any piece byte for byte', () => {
    const long = line.repeat(50_000);
    expect(redact(long)).toBe(long);
  });

  it('replaces every 10-character piece of either key at the start, middle and end of a long text', () => {
    for (const secret of [key, other]) {
      for (let start = KEY_PREFIX.length - 6; start + 10 <= secret.length; start++) {
        const piece = secret.slice(start, start + 10);
        for (const text of [
          `${piece}|${filler}`,
          `${filler}${piece}|${filler}`,
          `${filler}|${piece}`,
          piece,
        ]) {
          const out = redact(text);
          expect(out, `piece at ${start}`).not.toContain(piece);
          expect(out).toMatch(/\$CONFORMANCE_(API|OTHER_CAMPAIGN)_KEY/);
        }
      }
    }
  });
});
