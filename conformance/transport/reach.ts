/**
 * How the suite reaches a staging deployment the way QA's CI does: through a forward proxy
 * (`--proxy`, or `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` in either case, as curl reads them),
 * trusting a private CA (`--ca-file`) or nothing (`--insecure`), presenting a client certificate
 * (`--cert`, `--key`, the passphrase from the variable `--key-passphrase-env` names), and sending a
 * gateway's headers (`--header 'Name: value'`, or `CONFORMANCE_HEADERS`, one per line). Everything is
 * checked here, once: a file that cannot be read, a key that does not decrypt or a header the suite
 * owns is unusable configuration (exit 2). Messages never echo a header value, a passphrase or a
 * proxy's credentials: `reachSecrets` hands them to the redactor as well.
 */
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../core/config-error.ts';
import type { GatewayHeader, ProxySetting, Reach } from '../core/configuration.ts';

type Env = Record<string, string | undefined>;

/** The flags of `config.ts` this module reads. */
export interface ReachFlags {
  proxy?: string;
  'ca-file'?: string;
  insecure?: boolean;
  cert?: string;
  key?: string;
  'key-passphrase-env'?: string;
  header?: string[];
}

/** The variable `CONFORMANCE_HEADERS` reads gateway headers from, one `Name: value` per line. */
const HEADERS_VARIABLE = 'CONFORMANCE_HEADERS';
/** The variable `--proxy` falls back to. */
export const PROXY_VARIABLE = 'CONFORMANCE_PROXY';
/** The password of the `--proxy` (or `CONFORMANCE_PROXY`) user, when its URL holds none. */
export const PROXY_PASSWORD_VARIABLE = 'CONFORMANCE_PROXY_PASSWORD';

/**
 * The files' variables: the environment's way to give `--ca-file`, `--cert` and `--key` (the flag
 * wins). Reproductions name the variable rather than the path, so a file that lived only for the
 * run (the GitHub Action's) is not named after it is gone.
 */
const FILE_VARIABLES = {
  'ca-file': 'CONFORMANCE_CA_FILE',
  cert: 'CONFORMANCE_CERT_FILE',
  key: 'CONFORMANCE_KEY_FILE',
} as const;

/** A file flag, or its variable: the path, and the variable when that is where it came from. */
function fileSetting(
  flags: ReachFlags,
  env: Env,
  flag: keyof typeof FILE_VARIABLES,
): { raw: string; variable?: string } | undefined {
  const given = flags[flag];
  if (given !== undefined) return { raw: given };
  const variable = FILE_VARIABLES[flag];
  const raw = env[variable]?.trim();
  return raw ? { raw, variable } : undefined;
}

export function reachOf(flags: ReachFlags, env: Env): Reach {
  const reach: Reach = { insecure: flags.insecure === true, headers: headersOf(flags.header, env) };
  const explicit = flags.proxy ?? (env[PROXY_VARIABLE]?.trim() || undefined);
  if (explicit !== undefined) {
    reach.proxy = withPassword(
      proxySetting(explicit, flags.proxy !== undefined ? '--proxy' : PROXY_VARIABLE),
      env[PROXY_PASSWORD_VARIABLE],
    );
  }
  // curl's order: the lower-case name first.
  const http = firstSet(env, ['http_proxy', 'HTTP_PROXY']);
  if (http) reach.httpProxy = proxySetting(http.value, http.name);
  const https = firstSet(env, ['https_proxy', 'HTTPS_PROXY']);
  if (https) reach.httpsProxy = proxySetting(https.value, https.name);
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy) reach.noProxy = noProxy.value;
  const ca = fileSetting(flags, env, 'ca-file');
  if (ca) {
    const file = fileFlag('--ca-file', ca.raw);
    reach.ca = {
      file,
      pem: pemOf('--ca-file', file, 'CERTIFICATE'),
      ...(ca.variable ? { variable: ca.variable } : {}),
    };
  }
  const clientCert = clientCertOf(flags, env);
  if (clientCert) reach.clientCert = clientCert;
  return reach;
}

function firstSet(env: Env, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/** A proxy URL as curl takes it: `host:port` means `http://host:port`. Never echoed: it may hold a password. */
function proxySetting(raw: string, from: string): ProxySetting {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new ConfigError(
      `${from} is not a proxy URL: give http://host:port (credentials as http://user:password@host:port)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${from} must be an http:// or https:// proxy, not ${url.protocol}`);
  }
  return { url: url.href, from };
}

/**
 * `--proxy http://qa-ci@host:port` with the password in `CONFORMANCE_PROXY_PASSWORD`: the password
 * stays off the command line, and reproductions name the variable (curl.ts).
 */
function withPassword(proxy: ProxySetting, password: string | undefined): ProxySetting {
  const url = new URL(proxy.url);
  if (!password || !url.username || url.password) return proxy;
  url.password = encodeURIComponent(password);
  return { ...proxy, url: url.href, passwordVariable: PROXY_PASSWORD_VARIABLE };
}

/** The proxy's URL fit to print: its origin, credentials left out. */
export function shownProxy(proxy: ProxySetting): string {
  return new URL(proxy.url).origin;
}

/**
 * The proxy a request to `baseUrl` goes through, or undefined for a direct connection. As curl:
 * `--proxy` for either scheme, else the scheme's variable; a host `NO_PROXY` lists (itself or a
 * domain below it, an IP, a CIDR block, `*` for every host) goes direct. Loopback never takes a
 * proxy from the environment (as Go's and Python's clients decide): a CI machine's proxy cannot
 * reach the runner's own 127.0.0.1.
 */
export function proxyFor(baseUrl: string, reach: Reach | undefined): ProxySetting | undefined {
  if (!reach) return undefined;
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const fromEnv = url.protocol === 'https:' ? reach.httpsProxy : reach.httpProxy;
  const proxy = reach.proxy ?? fromEnv;
  if (!proxy || listedIn(reach.noProxy, host, portOf(url))) return undefined;
  if (!reach.proxy && isLoopback(host)) return undefined;
  return proxy;
}

function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
}

/** curl's `NO_PROXY`: comma- or space-separated hosts, domains (leading dot optional), IPs, CIDR, `*`. */
function listedIn(noProxy: string | undefined, host: string, port: number): boolean {
  const entries = (noProxy ?? '').split(/[,\s]+/).filter(Boolean);
  return entries.some((entry) => entryMatches(entry.toLowerCase(), host, port));
}

function entryMatches(entry: string, host: string, port: number): boolean {
  if (entry === '*') return true;
  const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(entry);
  if (cidr?.[1] && cidr[2]) return inBlock(host, cidr[1], Number(cidr[2]));
  const withPort = /^(.+):(\d+)$/.exec(entry);
  const name = (withPort?.[1] ?? entry).replace(/^\[|\]$/g, '').replace(/^\*?\./, '');
  if (withPort?.[2] && Number(withPort[2]) !== port && isIP(entry) === 0) return false;
  const bare = isIP(entry) !== 0 ? entry : name;
  return host === bare || host.endsWith(`.${bare}`);
}

function inBlock(host: string, network: string, prefix: number): boolean {
  const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(host) === 0 || isIP(network) === 0) return false;
  const block = new BlockList();
  try {
    block.addSubnet(network, prefix, family);
  } catch {
    return false;
  }
  return block.check(host, isIP(host) === 6 ? 'ipv6' : 'ipv4');
}

function fileFlag(flag: string, raw: string): string {
  if (raw.trim() === '') throw new ConfigError(`${flag} needs a file`);
  return resolve(raw);
}

/** The file's text, which must hold a PEM block of that label (`CERTIFICATE`, `PRIVATE KEY`). */
function pemOf(flag: string, file: string, label: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`${flag} ${file} cannot be read (${code})`);
  }
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text)) {
    throw new ConfigError(`${flag} ${file} holds no PEM ${label.toLowerCase()} (-----BEGIN ${label}-----)`);
  }
  return text;
}

/** `--cert` and `--key` together, the key decrypted with its passphrase and matching the certificate. */
function clientCertOf(flags: ReachFlags, env: Env): Reach['clientCert'] {
  const passphraseName = flags['key-passphrase-env'];
  const cert = fileSetting(flags, env, 'cert');
  const key = fileSetting(flags, env, 'key');
  if (cert === undefined && key === undefined) {
    if (passphraseName !== undefined)
      throw new ConfigError('--key-passphrase-env goes with --cert and --key');
    return undefined;
  }
  if (cert === undefined || key === undefined) {
    throw new ConfigError('a client certificate needs both --cert FILE and --key FILE (PEM)');
  }
  const certFile = fileFlag('--cert', cert.raw);
  const keyFile = fileFlag('--key', key.raw);
  const clientCert: NonNullable<Reach['clientCert']> = {
    certFile,
    cert: pemOf('--cert', certFile, 'CERTIFICATE'),
    keyFile,
    key: pemOf('--key', keyFile, 'PRIVATE KEY'),
    ...(cert.variable ? { certVariable: cert.variable } : {}),
    ...(key.variable ? { keyVariable: key.variable } : {}),
  };
  if (passphraseName !== undefined) {
    const passphrase = env[passphraseName];
    if (!passphrase) {
      throw new ConfigError(
        `--key-passphrase-env names ${passphraseName}, which is not set: export the key's passphrase in it`,
      );
    }
    clientCert.passphrase = passphrase;
    clientCert.passphraseVariable = passphraseName;
  }
  currentCertificate(clientCert);
  usableIdentity(clientCert, passphraseName);
  return clientCert;
}

/**
 * The client certificate's dates, checked here before anything is sent: a server refuses an expired
 * or not-yet-valid one with an alert that does not say why.
 */
function currentCertificate(clientCert: NonNullable<Reach['clientCert']>): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(clientCert.cert);
  } catch (error) {
    throw new ConfigError(
      `--cert ${clientCert.certFile} is not a usable certificate: ${(error as Error).message}`,
    );
  }
  const now = Date.now();
  const from = Date.parse(certificate.validFrom);
  const to = Date.parse(certificate.validTo);
  if (now > to) {
    throw new ConfigError(
      `--cert ${clientCert.certFile} expired on ${new Date(to).toISOString()}: renew the client certificate`,
    );
  }
  if (now < from) {
    throw new ConfigError(
      `--cert ${clientCert.certFile} is not valid until ${new Date(from).toISOString()}: check the machine's clock or use the current certificate`,
    );
  }
}

/** Node's own check of the pair: a key that does not decrypt or does not match fails here, not mid-run. */
function usableIdentity(
  clientCert: NonNullable<Reach['clientCert']>,
  passphraseName: string | undefined,
): void {
  try {
    createSecureContext({ cert: clientCert.cert, key: clientCert.key, passphrase: clientCert.passphrase });
  } catch (error) {
    const reason = (error as Error).message;
    if (/bad decrypt|passphrase|interrupted or cancelled|decode/i.test(reason)) {
      throw new ConfigError(
        passphraseName
          ? `--key ${clientCert.keyFile} does not decrypt with the passphrase in ${passphraseName}`
          : `--key ${clientCert.keyFile} is encrypted: name the variable holding its passphrase with --key-passphrase-env NAME`,
      );
    }
    if (/mismatch/i.test(reason)) {
      throw new ConfigError(`--key ${clientCert.keyFile} is not the key of --cert ${clientCert.certFile}`);
    }
    throw new ConfigError(
      `--cert ${clientCert.certFile} with --key ${clientCert.keyFile} is not usable: ${reason}`,
    );
  }
}

/** Headers the suite sets itself; a gateway header may not replace them. */
const OWN_HEADERS: Record<string, string> = {
  'x-api-key': 'the suite sends the keys itself, from CONFORMANCE_API_KEY and the other key variables',
  authorization:
    'the suite sends the keys itself (Authorization: Bearer), from CONFORMANCE_API_KEY and the other key variables',
  'proxy-authorization': "put the proxy's credentials in its URL: --proxy http://user:password@host:port",
  host: 'the host comes from --base-url',
  'content-length': 'the client sets it',
  'transfer-encoding': 'the client sets it',
  connection: 'the client sets it',
  'keep-alive': 'the client sets it',
  te: 'the client sets it',
  upgrade: 'the client sets it',
};

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Gateway headers, a later one of the same name replacing an earlier one: each `CONFORMANCE_HEADER_<NAME>`
 * variable (`CONFORMANCE_HEADER_X_GATEWAY_TOKEN` is `X-Gateway-Token`), then `CONFORMANCE_HEADERS`
 * lines, then `--header` flags.
 */
function headersOf(flags: string[] | undefined, env: Env): GatewayHeader[] {
  const lines = (env[HEADERS_VARIABLE] ?? '').split(/\r?\n/).map((line) => line.trim());
  const byName = new Map<string, GatewayHeader>();
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(HEADER_VARIABLE_PREFIX) || !value?.trim()) continue;
    // The variable's value is the header's as it stands: it names no further variable.
    const header = headerOf(`${headerNameOf(variable)}: ${value}`, variable, undefined);
    byName.set(header.name.toLowerCase(), {
      ...header,
      shown: `$${variable}`,
      secrets: { [variable]: header.value },
    });
  }
  const given = [
    ...lines
      .map((line, i) => ({ line, where: `${HEADERS_VARIABLE} line ${i + 1}` }))
      .filter((g) => g.line !== ''),
    ...(flags ?? []).map((line, i) => ({ line, where: `--header #${i + 1}` })),
  ];
  for (const { line, where } of given) {
    const header = headerOf(line, where, env);
    byName.set(header.name.toLowerCase(), header);
  }
  return [...byName.values()];
}

/** The variables the suite reads a gateway header from, one each: `CONFORMANCE_HEADER_<NAME>`. */
const HEADER_VARIABLE_PREFIX = 'CONFORMANCE_HEADER_';

/** `CONFORMANCE_HEADER_X_GATEWAY_TOKEN` → `X-Gateway-Token`. */
function headerNameOf(variable: string): string {
  return variable
    .slice(HEADER_VARIABLE_PREFIX.length)
    .split('_')
    .map((word) => word.charAt(0) + word.slice(1).toLowerCase())
    .join('-');
}

/** The variable reproductions name for a header given as a literal value. */
function variableOf(name: string): string {
  return `${HEADER_VARIABLE_PREFIX}${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** `$NAME` or `${NAME}` in a header value, as the shell writes a variable. */
const VARIABLE_REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * One `Name: value`; a message names the header, never its value. Variables the value names
 * (`--header 'X-Gateway-Token: $GATEWAY_TOKEN'`) are read from the environment, so the value never
 * stands on the command line and reproductions can name the same variables; one that is not set is
 * unusable configuration.
 */
function headerOf(line: string, where: string, env: Env | undefined): GatewayHeader {
  const colon = line.indexOf(':');
  const name = colon < 0 ? '' : line.slice(0, colon).trim();
  if (!TOKEN.test(name))
    throw new ConfigError(`${where} is not 'Name: value' (e.g. --header 'X-Gateway-Token: $GATEWAY_TOKEN')`);
  const written = line.slice(colon + 1).trim();
  const own = OWN_HEADERS[name.toLowerCase()];
  if (own) throw new ConfigError(`${where} sets ${name}, which --header cannot set: ${own}`);
  if (written === '') throw new ConfigError(`${where} (${name}) has no value`);
  const secrets: Record<string, string> = {};
  const value = written.replace(VARIABLE_REFERENCE, (match, braced?: string, bare?: string) => {
    if (env === undefined) return match;
    const variable = (braced ?? bare) as string;
    const set = env[variable];
    if (set === undefined || set === '') {
      throw new ConfigError(
        `${where} (${name}) names $${variable}, which is not set: export it, or give the value`,
      );
    }
    secrets[variable] = set;
    return set;
  });
  if (/[\0\r\n]/.test(value)) throw new ConfigError(`${where} (${name}) holds a control character`);
  if (Object.keys(secrets).length > 0) return { name, value, shown: written, secrets };
  const variable = variableOf(name);
  return { name, value, shown: `$${variable}`, secrets: { [variable]: value } };
}

/**
 * A header value shorter than this is no secret (`X-Debug: 1`), and the redactor, which replaces a
 * short value wherever it stands as a word, would turn every `1` of a report into a variable. The
 * client never shows any header value itself: reproductions always name the variable.
 */
const SECRET_HEADER_LENGTH = 8;

/**
 * The secrets of the reach, by the name reports show instead: gateway header values, the proxy's
 * credentials (decoded; the redactor also finds their URL-encoded form), the key's passphrase.
 */
export function reachSecrets(reach: Reach | undefined): Record<string, string> {
  const secrets: Record<string, string> = {};
  if (!reach) return secrets;
  for (const header of reach.headers) {
    for (const [variable, value] of Object.entries(header.secrets)) {
      if (value.length >= SECRET_HEADER_LENGTH) secrets[variable] = value;
    }
  }
  for (const proxy of [reach.proxy, reach.httpProxy, reach.httpsProxy]) {
    if (!proxy) continue;
    const { password } = new URL(proxy.url);
    const prefix = proxy.from === '--proxy' ? PROXY_VARIABLE : proxy.from.toUpperCase();
    // The user name is no secret: a refused login names it (the password never).
    if (password) secrets[`${prefix}_PASSWORD`] = safeDecode(password);
  }
  const cert = reach.clientCert;
  if (cert?.passphrase && cert.passphraseVariable) secrets[cert.passphraseVariable] = cert.passphrase;
  return secrets;
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
