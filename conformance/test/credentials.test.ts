import { describe, expect, it } from 'vitest';
import { credentialLabel, Keyring, keyIdOf } from '../core/credentials.ts';

const KEY = `svc_sk_live_${'a1B2'.repeat(8)}`;
const OTHER = `svc_sk_live_${'z9Y8'.repeat(8)}`;
const keyring = new Keyring({ keys: { CONFORMANCE_API_KEY: KEY }, keyPrefix: 'svc_sk_live_' });

describe('credentials told from headers', () => {
  it('names a configured key by its role, raw or as a placeholder, in either header', () => {
    expect(keyring.credentialOf({ Authorization: `Bearer ${KEY}` })).toEqual({
      kind: 'key',
      key: 'CONFORMANCE_API_KEY',
      via: 'bearer',
    });
    expect(keyring.credentialOf({ 'x-api-key': KEY })).toEqual({
      kind: 'key',
      key: 'CONFORMANCE_API_KEY',
      via: 'x-api-key',
    });
    expect(keyring.credentialOf({ Authorization: 'Bearer $CONFORMANCE_REVOKED_KEY' })).toEqual({
      kind: 'key',
      key: 'CONFORMANCE_REVOKED_KEY',
      via: 'bearer',
    });
  });

  it('tells near misses, made-up keys, unknown recorded keys and nothing at all', () => {
    expect(
      keyring.credentialOf({
        Authorization: 'Bearer <$CONFORMANCE_API_KEY with its last character changed>',
      }),
    ).toMatchObject({
      kind: 'near-miss',
      miss: 'last-changed',
    });
    expect(keyring.credentialOf({ 'x-api-key': 'svc_sk_live_$(openssl rand -hex 24)' })).toEqual({
      kind: 'made-up',
      via: 'x-api-key',
    });
    expect(keyring.credentialOf({ Authorization: `Bearer ${OTHER}` })).toEqual({
      kind: 'recorded',
      id: keyIdOf(OTHER),
      via: 'bearer',
    });
    expect(keyring.credentialOf({})).toEqual({ kind: 'none' });
    expect(keyring.credentialOf({}, false)).toEqual({ kind: 'unseen' });
  });

  it('calls every other form malformed, naming its scheme and never its value', () => {
    const forms: Record<string, string>[] = [
      { Authorization: 'Basic dXNlcjpwYXNzd29yZA==' },
      { Authorization: `Token ${KEY}` },
      { Authorization: KEY },
      { Authorization: 'Bearer not-a-key' },
      { 'x-api-key': `Bearer ${KEY}` },
    ];
    for (const headers of forms) {
      const credential = keyring.credentialOf(headers);
      expect(credential.kind).toBe('malformed');
      expect(credentialLabel(credential)).not.toContain(KEY.slice(12));
    }
  });

  it('keeps two different keys apart, and one key in both headers as one', () => {
    expect(keyring.credentialOf({ Authorization: `Bearer ${KEY}`, 'x-api-key': KEY }).kind).toBe('key');
    expect(keyring.credentialOf({ Authorization: `Bearer ${KEY}`, 'x-api-key': OTHER })).toMatchObject({
      kind: 'two',
    });
  });

  it('shows a key header without its secret, in a form it reads back the same', () => {
    const shown = keyring.shownValue('authorization', `Bearer ${KEY}`);
    expect(shown).toBe('Bearer $CONFORMANCE_API_KEY');
    const unknown = keyring.shownValue('x-api-key', OTHER);
    expect(unknown).toBe(keyIdOf(OTHER));
    expect(keyring.credentialOf({ 'x-api-key': unknown })).toEqual({
      kind: 'recorded',
      id: keyIdOf(OTHER),
      via: 'x-api-key',
    });
    expect(keyring.shownValue('authorization', 'Basic dXNlcjpwYXNzd29yZA==')).toBe('Basic [redacted]');
    expect(keyring.credentialOf({ Authorization: 'Basic [redacted]' }).kind).toBe('malformed');
  });
});
