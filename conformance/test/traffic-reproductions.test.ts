/**
 * A finding of a recording reproduces with the key's variable: a configured key's role
 * (`$CONFORMANCE_OTHER_CAMPAIGN_KEY`), and a recorded key no configuration names by a variable
 * named for its hashed id (`$CONFORMANCE_KEY_3F9A1C0E`), never the key.
 */
import { describe, expect, it } from 'vitest';
import { Keyring, keyIdOf } from '../core/credentials.ts';
import { curlOf } from '../transport/curl.ts';

const PRIMARY = 'svc_sk_live_primaryprimaryprimary';
const OTHER = 'svc_sk_live_otherotherotherother';
const STRANGER = 'svc_sk_live_strangerstrangerstranger';
const keyring = new Keyring({
  keys: { CONFORMANCE_API_KEY: PRIMARY, CONFORMANCE_OTHER_CAMPAIGN_KEY: OTHER },
  keyPrefix: 'svc_sk_live_',
});

const curlWith = (name: 'authorization' | 'x-api-key', value: string) =>
  curlOf({
    method: 'GET',
    url: 'https://api.example/api/v1/walks',
    keys: [],
    headers: { [name === 'authorization' ? 'Authorization' : 'x-api-key']: keyring.shownValue(name, value) },
  });

describe('reproducing a recorded exchange', () => {
  it("uses the role's variable for a configured key, in either header", () => {
    expect(curlWith('authorization', `Bearer ${OTHER}`)).toContain(
      '-H "Authorization: Bearer $CONFORMANCE_OTHER_CAMPAIGN_KEY"',
    );
    expect(curlWith('x-api-key', PRIMARY)).toContain('-H "x-api-key: $CONFORMANCE_API_KEY"');
  });

  it('uses a variable named for the hashed id of a key no configuration names', () => {
    const id = keyIdOf(STRANGER);
    expect(id).toMatch(/^key#[0-9a-f]{8}$/);
    const curl = curlWith('authorization', `Bearer ${STRANGER}`);
    expect(curl).toContain(`-H "Authorization: Bearer $CONFORMANCE_KEY_${id.slice(4).toUpperCase()}"`);
    for (const key of [STRANGER, PRIMARY, OTHER]) expect(curl).not.toContain(key);
  });
});
