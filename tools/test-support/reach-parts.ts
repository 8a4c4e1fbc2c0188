/**
 * The real parts a staging set-up puts between QA's CI and the API, each on 127.0.0.1: certificates
 * made for the test by Debian's openssl (a CA, a server certificate, an expired one, one for
 * another host, a client certificate and its encrypted key), an HTTPS terminator in front of a
 * server (optionally requiring a client certificate, TLS 1.2 or 1.3), a forward proxy that serves
 * absolute-URI requests and CONNECT and alone resolves a made-up host name (logging each), and a
 * gateway that refuses a request without its header (a 401 outside the API's envelope).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { SecureVersion, TLSSocket } from 'node:tls';
import { type Listening, listen } from './listen.ts';

/** A host name no resolver knows (RFC 2606): only the test's proxy maps it to 127.0.0.1. */
export const HIDDEN_HOST = 'staging.canvassing.invalid';

export interface Pki {
  dir: string;
  caFile: string;
  /** Signed by the CA for localhost, 127.0.0.1 and HIDDEN_HOST. */
  server: { cert: string; key: string };
  /** Signed by the CA, valid for no time at all: expired by the time it is used. */
  expired: { cert: string; key: string };
  /** Signed by the CA for another host name only. */
  otherHost: { cert: string; key: string };
  /** Client certificate signed by the CA; its key also as an encrypted copy. */
  clientCertFile: string;
  clientKeyFile: string;
  /** A self-signed client certificate no server of the test trusts. */
  strangerCertFile: string;
  strangerKeyFile: string;
  encryptedKeyFile: string;
  passphrase: string;
  /** Client certificates signed by the CA: one expired, one valid only from 2099 on. */
  expiredClient: { certFile: string; keyFile: string };
  futureClient: { certFile: string; keyFile: string };
  /** A CA of another organisation, which signed none of these. */
  otherCaFile: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A new key, `name.key`, and its certificate signing request, `name.csr`. */
function signingRequest(dir: string, name: string, subject: string): void {
  const out = ['-keyout', `${name}.key`, '-out', `${name}.csr`];
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', ...out, '-subj', `/CN=${subject}`]);
}

/** A key and a certificate signed by the CA, with these alternative names and days of validity. */
function signed(dir: string, name: string, subject: string, altNames: string | undefined, days: number) {
  signingRequest(dir, name, subject);
  const ext = altNames ? ['-extfile', `${name}.ext`] : [];
  if (altNames) writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${altNames}\n`);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    String(days),
    ...ext,
  ]);
  return {
    cert: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    key: readFileSync(join(dir, `${name}.key`), 'utf8'),
  };
}

/** A self-signed certificate and its key, `name.pem` and `name.key`. */
function selfSigned(dir: string, name: string, subject: string): void {
  const out = ['-keyout', `${name}.key`, '-out', `${name}.pem`];
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    ...out,
    '-days',
    '2',
    '-subj',
    `/CN=${subject}`,
  ]);
}

/** A client certificate signed by the CA, valid only in the years to come (openssl ca sets the dates). */
function signedLater(dir: string, name: string): void {
  signingRequest(dir, name, name);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'later.cnf'), LATER_CA_CONFIG);
  const dates = ['-startdate', '20990101000000Z', '-enddate', '21000101000000Z'];
  openssl(dir, [
    'ca',
    '-batch',
    '-notext',
    '-config',
    'later.cnf',
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.pem`,
    ...dates,
  ]);
}

const LATER_CA_CONFIG = `[ca]
default_ca = later
[later]
dir = .
database = index.txt
new_certs_dir = .
serial = later.srl
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = any
unique_subject = no
[any]
commonName = supplied
`;

export function makePki(dir: string): Pki {
  selfSigned(dir, 'ca', 'Reach Test CA');
  const names = `DNS:localhost,IP:127.0.0.1,DNS:${HIDDEN_HOST}`;
  const server = signed(dir, 'server', 'localhost', names, 2);
  const expired = signed(dir, 'expired', 'localhost', names, 0);
  const otherHost = signed(dir, 'other', 'elsewhere.example', 'DNS:elsewhere.example', 2);
  signed(dir, 'client', 'qa-ci', undefined, 2);
  selfSigned(dir, 'stranger', 'stranger');
  signed(dir, 'client-expired', 'qa-ci-expired', undefined, 0);
  writeFileSync(join(dir, 'later.srl'), '01\n');
  signedLater(dir, 'client-future');
  selfSigned(dir, 'other-ca', 'Other Org Root CA');
  const passphrase = 'reach-test-passphrase-9f3c';
  openssl(dir, [
    'pkey',
    '-in',
    'client.key',
    '-aes256',
    '-passout',
    `pass:${passphrase}`,
    '-out',
    'client-encrypted.key',
  ]);
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    server,
    expired,
    otherHost,
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client.key'),
    strangerCertFile: join(dir, 'stranger.pem'),
    strangerKeyFile: join(dir, 'stranger.key'),
    encryptedKeyFile: join(dir, 'client-encrypted.key'),
    passphrase,
    expiredClient: { certFile: join(dir, 'client-expired.pem'), keyFile: join(dir, 'client-expired.key') },
    futureClient: { certFile: join(dir, 'client-future.pem'), keyFile: join(dir, 'client-future.key') },
    otherCaFile: join(dir, 'other-ca.pem'),
  };
}

/** Passes a request on to `origin` (http://127.0.0.1:port) and its answer back. */
function forward(req: IncomingMessage, res: ServerResponse, origin: string, path: string): void {
  const upstream = httpRequest(`${origin}${path}`, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

export interface TerminatorOptions {
  identity: { cert: string; key: string };
  /** Require a client certificate signed by this CA. */
  clientCa?: string;
  /** As nginx's `ssl_verify_client on`: complete the handshake, then answer 400 in HTML to a missing or refused certificate. */
  refuseIn400?: true;
  tls?: SecureVersion;
}

/** An HTTPS terminator in front of `origin`; its `baseUrl` names 127.0.0.1. */
export async function startTerminator(origin: string, options: TerminatorOptions): Promise<Listening> {
  const server = createHttpsServer(
    {
      ...options.identity,
      ...(options.clientCa
        ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: options.refuseIn400 !== true }
        : {}),
      ...(options.tls ? { minVersion: options.tls, maxVersion: options.tls } : {}),
    },
    (req, res) => {
      if (options.refuseIn400 && !(req.socket as TLSSocket).authorized) {
        res
          .writeHead(400, { 'content-type': 'text/html' })
          .end(
            '<html><head><title>400 The SSL certificate error</title></head><body>400 Bad Request</body></html>',
          );
        return;
      }
      forward(req, res, origin, req.url ?? '/');
    },
  );
  // A connection whose TLS handshake never completed is no HTTP connection `closeAllConnections` knows.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listening = await listen(server);
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return listening.close();
  };
  return { ...listening, close, baseUrl: listening.baseUrl.replace(/^http:/, 'https:') };
}

export interface ForwardProxy extends Listening {
  /** One line per request: `GET http://host:port/path` or `CONNECT host:port`. */
  log: string[];
}

/** What a proxy answers for a host it cannot reach: its own 502, or squid's 503 when DNS fails. */
const REFUSALS = {
  'bad-gateway': { status: 502, line: '502 Bad Gateway', headers: { 'content-type': 'text/plain' } },
  'squid-dns': {
    status: 503,
    line: '503 Service Unavailable',
    headers: { 'x-squid-error': 'ERR_DNS_FAIL 0', 'content-type': 'text/html' },
  },
} as const;
type Refusal = { status: number; line: string; headers: Record<string, string> };

/**
 * A forward proxy that maps HIDDEN_HOST to 127.0.0.1 and refuses any other host (502, or as squid
 * does when its DNS fails: 503 with `X-Squid-Error: ERR_DNS_FAIL 0`); given `credentials`
 * (`user:password`), it wants them as Basic `Proxy-Authorization` (else 407).
 */
export async function startForwardProxy(
  credentials?: string,
  unknownHost: 'bad-gateway' | 'squid-dns' = 'bad-gateway',
): Promise<ForwardProxy> {
  const refusal: Refusal = REFUSALS[unknownHost];
  const log: string[] = [];
  const expected = credentials ? `Basic ${Buffer.from(credentials).toString('base64')}` : undefined;
  const denied = (req: IncomingMessage) =>
    expected !== undefined && req.headers['proxy-authorization'] !== expected;
  const server = createHttpServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    if (denied(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' }).end();
      return;
    }
    const target = /^http:\/\/([^/]+)(\/.*)?$/.exec(req.url ?? '');
    const address = target?.[1] ? resolved(target[1]) : undefined;
    if (!address) {
      res.writeHead(refusal.status, refusal.headers).end('proxy: unknown host\n');
      return;
    }
    forward(req, res, `http://${address}`, target?.[2] ?? '/');
  });
  const tunnels = new Set<Socket>();
  server.on('connect', (req: IncomingMessage, client: Socket) => {
    log.push(`CONNECT ${req.url}`);
    tunnels.add(client);
    client.on('close', () => tunnels.delete(client));
    if (denied(req)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\n\r\n',
      );
      return;
    }
    const address = resolved(req.url ?? '');
    if (!address) {
      const headers = Object.entries(refusal.headers).map(([name, value]) => `${name}: ${value}\r\n`);
      client.end(`HTTP/1.1 ${refusal.line}\r\n${headers.join('')}content-length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = address.split(':');
    const upstream = netConnect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // Either end going takes the other with it: no half-open tunnel keeps a server alive.
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
  const listening = await listen(server);
  // A tunnel's socket is no longer the HTTP server's: it is cut here.
  const close = () => {
    for (const socket of tunnels) socket.destroy();
    return listening.close();
  };
  return { ...listening, close, log };
}

/** `HIDDEN_HOST:port` → `127.0.0.1:port`; anything else is unknown to the proxy. */
function resolved(hostPort: string): string | undefined {
  const [host, port] = hostPort.split(':');
  return host === HIDDEN_HOST && port ? `127.0.0.1:${port}` : undefined;
}

/** A gateway in front of `origin`: without `name: value` a 401 in its own JSON, not the API's envelope. */
export async function startHeaderGate(origin: string, name: string, value: string): Promise<Listening> {
  return listen((req, res) => {
    if (req.headers[name.toLowerCase()] !== value) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"message":"Unauthorized: missing gateway token"}');
      return;
    }
    forward(req, res, origin, req.url ?? '/');
  });
}

/** A proxy that accepts connections and never answers a byte: what hung a run for minutes. */
export async function startSilentProxy(): Promise<Listening> {
  const held = new Set<Socket>();
  const server = createNetServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  const listening = await listen(server);
  const close = () => {
    for (const socket of held) socket.destroy();
    return listening.close();
  };
  return { ...listening, close };
}
