/**
 * Which proxy a target takes, as curl decides (reach.ts): `--proxy` for either scheme, else the
 * scheme's variable with the lower-case name first; `NO_PROXY` hosts, domains, IPs, CIDR blocks and
 * `*` go direct; loopback never takes a proxy from the environment. And the reach flags' refusals.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/config-error.ts';
import { proxyFor, reachOf, reachSecrets } from '../transport/reach.ts';

const PROXY = 'http://proxy.corp.example:3128';
const OTHER = 'http://other.corp.example:8080';

function chosen(baseUrl: string, env: Record<string, string>, flags: { proxy?: string } = {}) {
  return proxyFor(baseUrl, reachOf(flags, env))?.from;
}

describe('the proxy a target takes', () => {
  it.each([
    ['https://staging.example', { HTTPS_PROXY: PROXY }, 'HTTPS_PROXY'],
    ['https://staging.example', { https_proxy: PROXY, HTTPS_PROXY: OTHER }, 'https_proxy'],
    ['http://staging.example', { HTTP_PROXY: PROXY }, 'HTTP_PROXY'],
    ['http://staging.example', { http_proxy: PROXY, HTTP_PROXY: OTHER }, 'http_proxy'],
    ['http://staging.example', { HTTPS_PROXY: PROXY }, undefined],
    ['https://staging.example', { HTTP_PROXY: PROXY }, undefined],
    ['https://staging.example', { CONFORMANCE_PROXY: PROXY, HTTPS_PROXY: OTHER }, 'CONFORMANCE_PROXY'],
  ])('%s with %j: %s', (baseUrl, env, from) => {
    expect(chosen(baseUrl, env)).toBe(from);
  });

  it('--proxy wins over CONFORMANCE_PROXY and the variables', () => {
    expect(
      chosen('https://staging.example', { CONFORMANCE_PROXY: OTHER, HTTPS_PROXY: OTHER }, { proxy: PROXY }),
    ).toBe('--proxy');
  });

  it.each([
    ['staging.example', true],
    ['.example', true],
    ['*.example', true],
    ['example', true],
    ['other.example', false],
    ['ging.example', false],
    ['*', true],
    ['staging.example:443', true],
    ['staging.example:8443', false],
    ['localhost, staging.example', true],
    ['localhost staging.example', true],
  ])('NO_PROXY=%j sends https://staging.example direct: %s', (noProxy, direct) => {
    expect(chosen('https://staging.example', { HTTPS_PROXY: PROXY, NO_PROXY: noProxy })).toBe(
      direct ? undefined : 'HTTPS_PROXY',
    );
  });

  it.each([
    ['10.1.2.3', '10.0.0.0/8', true],
    ['10.1.2.3', '10.1.2.3', true],
    ['10.1.2.3', '192.168.0.0/16', false],
  ])('an IP target %s with NO_PROXY=%s goes direct: %s', (ip, noProxy, direct) => {
    expect(chosen(`https://${ip}`, { HTTPS_PROXY: PROXY, no_proxy: noProxy })).toBe(
      direct ? undefined : 'HTTPS_PROXY',
    );
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080'])(
    '%s on loopback takes no proxy from the environment, only from --proxy',
    (baseUrl) => {
      expect(chosen(baseUrl, { HTTP_PROXY: PROXY })).toBeUndefined();
      expect(chosen(baseUrl, { HTTP_PROXY: PROXY }, { proxy: OTHER })).toBe('--proxy');
    },
  );

  it('a proxy without a scheme is http, as curl takes it', () => {
    expect(
      proxyFor('https://staging.example', reachOf({}, { HTTPS_PROXY: 'proxy.corp.example:3128' }))?.url,
    ).toBe('http://proxy.corp.example:3128/');
  });
});

describe('the reach flags refuse what cannot work, never echoing a secret', () => {
  it.each([
    [{ proxy: 'socks5://proxy:1080' }, /--proxy must be an http:\/\/ or https:\/\/ proxy/],
    [{ proxy: 'http://user:pa ss@[bad' }, /--proxy is not a proxy URL/],
    [{ header: ['X-Token secret-value-123'] }, /--header #1 is not 'Name: value'/],
    [{ header: ['X-Token:'] }, /--header #1 \(X-Token\) has no value/],
    [
      { header: ['Proxy-Authorization: Basic c2VjcmV0LXZhbHVlLTEyMw=='] },
      /put the proxy's credentials in its URL/,
    ],
    [{ header: ['Host: other.example'] }, /--header #1 sets Host/],
    [{ 'key-passphrase-env': 'X' }, /--key-passphrase-env goes with --cert and --key/],
  ])('%j', (flags, message) => {
    let error: unknown;
    try {
      reachOf(flags, {});
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(/secret-value-123|pa ss|c2VjcmV0/);
  });

  it('CONFORMANCE_HEADERS lines are named by line, and a --header replaces a header of the same name', () => {
    expect(() => reachOf({}, { CONFORMANCE_HEADERS: 'X-A: one-value\nbroken' })).toThrow(
      /CONFORMANCE_HEADERS line 2 is not 'Name: value'/,
    );
    const reach = reachOf({ header: ['x-a: from-the-flag'] }, { CONFORMANCE_HEADERS: 'X-A: from-the-env' });
    expect(reach.headers).toEqual([
      {
        name: 'x-a',
        value: 'from-the-flag',
        shown: '$CONFORMANCE_HEADER_X_A',
        secrets: { CONFORMANCE_HEADER_X_A: 'from-the-flag' },
      },
    ]);
  });

  it("the redactor learns header values, the proxy's password and the passphrase, by their names", () => {
    const reach = reachOf(
      {
        proxy: 'http://qa:p%40ss-w0rd-long@proxy:3128',
        header: ['X-Gateway-Token: gw-token-value', 'X-Debug: 1'],
      },
      {},
    );
    expect(reachSecrets(reach)).toEqual({
      CONFORMANCE_HEADER_X_GATEWAY_TOKEN: 'gw-token-value',
      CONFORMANCE_PROXY_PASSWORD: 'p@ss-w0rd-long',
    });
  });
});
