/**
 * Hostile requests, sent byte for byte over a real socket (`node:net`), so invalid
 * percent-encoding, raw NUL and UTF-8 bytes, duplicate headers and odd request lines reach the
 * server exactly as written. Each gets the decided answer of spec/DECISIONS.md in the JSON
 * envelope; none gets a 5xx, none echoes a key, and the server keeps answering.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { createApp } from '../app.ts';
import { createHttpServer, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../start.ts';
import { activeWalksOf, contract, datasetFor, startTestServer, type TestServer } from './harness.ts';

const dataset = datasetFor();
const keys = demoCredentials({ seed: dataset.seed });
const KEY = keys.CONFORMANCE_API_KEY;
const OTHER = keys.CONFORMANCE_OTHER_CAMPAIGN_KEY;
const WALK = activeWalksOf(dataset, 0)[0]?.id ?? '';
const OTHER_WALK = activeWalksOf(dataset, 1)[0]?.id ?? '';
const LARGEST_WALK = activeWalksOf(dataset, 0).reduce((a, b) => (b.stops.length > a.stops.length ? b : a)).id;

interface RawRequest {
  method?: string;
  /** The request target as sent; a JS string whose chars are the bytes (latin1). */
  target: string;
  headers?: [string, string][];
  body?: string;
  /** The request line's protocol (default HTTP/1.1); Host is added unless `noHost`. */
  version?: string;
  noHost?: boolean;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

/** What the decision log says the server answers. */
type Expected =
  | { status: 200; operation: 'listWalks' | 'getWalk'; items?: number }
  | { status: number; code: string; message?: string };

const NO_SUCH_ENDPOINT = { status: 404, code: 'not_found', message: 'No such endpoint.' };
const WALK_NOT_FOUND = { status: 404, code: 'not_found', message: 'Walk not found.' };
const INVALID_LIMIT = { status: 400, code: 'invalid_parameter' };
const INVALID_KEY = { status: 401, code: 'unauthorized', message: 'The API key is not valid.' };
/** Basic authentication is a common mistake: its answer says how to send the key (D-AUTH-MALFORMED). */
const BASIC_AUTH = {
  status: 401,
  code: 'unauthorized',
  message:
    'Basic authentication is not accepted: send the API key as Authorization: Bearer <API_KEY>, or x-api-key: <API_KEY>.',
};
const CONFLICT = { status: 400, code: 'conflicting_credentials' };
const METHOD = { status: 405, code: 'method_not_allowed' };
const UNPARSEABLE = { status: 400, code: 'bad_request' };
const LIST_OK = { status: 200, operation: 'listWalks' } as const;
const LIST_DEFAULT = { status: 200, operation: 'listWalks', items: 50 } as const;
const DETAIL_OK = { status: 200, operation: 'getWalk' } as const;

/** The UTF-8 bytes of a text, as a latin1 JS string (what goes on the wire unencoded). */
const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const withKey = (key = KEY): [string, string][] => [['Authorization', `Bearer ${key}`]];
const get = (target: string, headers = withKey()): RawRequest => ({ target, headers });

const CASES: [string, RawRequest, Expected][] = [
  // Ids of 1 to 10,000 characters (D-ID-MALFORMED).
  ...[1, 35, 36, 37, 100, 1_000, 10_000].map((n): [string, RawRequest, Expected] => [
    `an id of ${n} characters`,
    get(`/api/v1/walks/${'a'.repeat(n)}`),
    WALK_NOT_FOUND,
  ]),
  ['a walk id with junk after it', get(`/api/v1/walks/${WALK}x`), WALK_NOT_FOUND],
  ['a walk id in upper case', get(`/api/v1/walks/${WALK.toUpperCase()}`), DETAIL_OK],
  ['a walk of another campaign', get(`/api/v1/walks/${OTHER_WALK}`), WALK_NOT_FOUND],
  // Percent-encoded traversal and NUL.
  ['an encoded traversal as the id', get('/api/v1/walks/..%2F..%2F..%2Fetc%2Fpasswd'), WALK_NOT_FOUND],
  ['an encoded dot-dot as the id', get('/api/v1/walks/%2e%2e'), WALK_NOT_FOUND],
  ['an encoded backslash traversal', get('/api/v1/walks/..%5c..%5copenapi.yaml'), WALK_NOT_FOUND],
  ['raw dot segments towards the spec', get('/api/v1/walks/../../../openapi.yaml'), NO_SUCH_ENDPOINT],
  ['encoded dot segments in the prefix', get('/api/v1/%2e%2e/walks'), NO_SUCH_ENDPOINT],
  ['an encoded slash as the id', get('/api/v1/walks/%2F'), WALK_NOT_FOUND],
  ['an encoded NUL as the id', get('/api/v1/walks/%00'), WALK_NOT_FOUND],
  ['an encoded NUL after a walk id', get(`/api/v1/walks/${WALK}%00`), WALK_NOT_FOUND],
  ['an encoded NUL after the list path', get('/api/v1/walks%00'), NO_SUCH_ENDPOINT],
  ['an encoded NUL in limit', get('/api/v1/walks?limit=1%00'), INVALID_LIMIT],
  ['a raw NUL byte in the path', get('/api/v1/walks/\u0000'), UNPARSEABLE],
  ['a raw NUL byte in a header', get('/api/v1/walks', [['x-api-key', `${KEY}\u0000`]]), UNPARSEABLE],
  // Invalid percent-encoding.
  ...['%', '%Z', '%ZZ', '%E0%A4%A', '%C0%AF', '%FF%FE', '%u0041'].map(
    (id): [string, RawRequest, Expected] => [
      `the invalid encoding ${id} as the id`,
      get(`/api/v1/walks/${id}`),
      WALK_NOT_FOUND,
    ],
  ),
  ['invalid percent-encoding in limit', get('/api/v1/walks?limit=%E0%A4%A'), INVALID_LIMIT],
  ['invalid percent-encoding in an unknown query key', get('/api/v1/walks?%ZZ=1&%=%'), LIST_DEFAULT],
  // Unicode and emoji.
  ['an encoded emoji as the id', get(`/api/v1/walks/${encodeURIComponent('😀')}`), WALK_NOT_FOUND],
  ['an encoded right-to-left override', get(`/api/v1/walks/${encodeURIComponent('\u202e')}`), WALK_NOT_FOUND],
  ['raw UTF-8 bytes of an emoji in the path', get(utf8('/api/v1/walks/😀')), UNPARSEABLE],
  ['an emoji as limit', get(`/api/v1/walks?limit=${encodeURIComponent('😀')}`), INVALID_LIMIT],
  ['Arabic-Indic digits as limit', get(`/api/v1/walks?limit=${encodeURIComponent('٣')}`), INVALID_LIMIT],
  ['raw UTF-8 bytes in the key header', get('/api/v1/walks', [['x-api-key', utf8(`${KEY}é`)]]), INVALID_KEY],
  ['fullwidth letters in the path', get(`/api/v1/${encodeURIComponent('ｗａｌｋｓ')}`), NO_SUCH_ENDPOINT],
  // Trailing and doubled slashes, upper case (D-PATH-UNKNOWN).
  ['one trailing slash on the list', get('/api/v1/walks/?limit=2'), { ...LIST_OK, items: 2 }],
  ['one trailing slash on a walk', get(`/api/v1/walks/${WALK}/`), DETAIL_OK],
  ['two trailing slashes on the list', get('/api/v1/walks//'), NO_SUCH_ENDPOINT],
  ['two trailing slashes on a walk', get(`/api/v1/walks/${WALK}//`), NO_SUCH_ENDPOINT],
  ['a doubled slash inside', get('/api/v1//walks'), NO_SUCH_ENDPOINT],
  ['a doubled leading slash', get('//api/v1/walks'), NO_SUCH_ENDPOINT],
  ['an upper-case path', get('/API/V1/WALKS'), NO_SUCH_ENDPOINT],
  ['an upper-case resource', get('/api/v1/Walks'), NO_SUCH_ENDPOINT],
  ['an encoded letter in the path', get('/api/v1/wal%6Bs'), NO_SUCH_ENDPOINT],
  ['the asterisk target', get('*'), NO_SUCH_ENDPOINT],
  // limit as array, object, huge, 1e3, 0x10, Infinity (D-LIMIT, D-QUERY-UNKNOWN).
  ['limit repeated', get('/api/v1/walks?limit=1&limit=2'), INVALID_LIMIT],
  ['limit repeated with the same value', get('/api/v1/walks?limit=5&limit=5'), INVALID_LIMIT],
  ['limit as a comma list', get('/api/v1/walks?limit=1,2'), INVALID_LIMIT],
  ['limit[] (an unknown key)', get('/api/v1/walks?limit[]=5'), LIST_DEFAULT],
  ['limit[0] (an unknown key)', get('/api/v1/walks?limit[0]=5&limit[1]=6'), LIST_DEFAULT],
  ['limit[a] (an unknown key)', get('/api/v1/walks?limit[a]=5'), LIST_DEFAULT],
  ['limit[toString] (an unknown key)', get('/api/v1/walks?limit[toString]=1'), LIST_DEFAULT],
  ['a huge limit', get(`/api/v1/walks?limit=1${'0'.repeat(400)}`), INVALID_LIMIT],
  ['limit 2^53+1', get('/api/v1/walks?limit=9007199254740993'), INVALID_LIMIT],
  ...[
    '1e3',
    '1e2',
    '0x10',
    'Infinity',
    '-Infinity',
    'NaN',
    '-1',
    '0',
    '201',
    '1.5',
    '5.0',
    '+5',
    '%205',
    'true',
    'null',
    '[1]',
    '{}',
  ].map((value): [string, RawRequest, Expected] => [
    `limit=${value}`,
    get(`/api/v1/walks?limit=${value}`),
    INVALID_LIMIT,
  ]),
  ['limit with leading zeros', get('/api/v1/walks?limit=007'), { ...LIST_OK, items: 7 }],
  // Prototype-pollution query keys (D-QUERY-UNKNOWN).
  ['__proto__[x]', get('/api/v1/walks?__proto__[x]=polluted'), LIST_DEFAULT],
  ['__proto__ alone', get('/api/v1/walks?__proto__=x'), LIST_DEFAULT],
  ['constructor[prototype][x]', get('/api/v1/walks?constructor[prototype][x]=polluted'), LIST_DEFAULT],
  ['constructor[prototype]', get('/api/v1/walks?constructor[prototype]=polluted'), LIST_DEFAULT],
  ['__proto__.x dotted', get('/api/v1/walks?__proto__.x=polluted&constructor.prototype.y=1'), LIST_DEFAULT],
  ['__proto__[limit] beside a bad limit', get('/api/v1/walks?__proto__[limit]=5&limit=abc'), INVALID_LIMIT],
  ['__proto__ as the walk id', get('/api/v1/walks/__proto__'), WALK_NOT_FOUND],
  ['constructor as the walk id', get('/api/v1/walks/constructor'), WALK_NOT_FOUND],
  ['hasOwnProperty as the walk id', get('/api/v1/walks/hasOwnProperty'), WALK_NOT_FOUND],
  // Conflicting and odd auth headers (D-AUTH-*).
  ['both headers, different keys', get('/api/v1/walks', [...withKey(), ['x-api-key', OTHER]]), CONFLICT],
  [
    'both headers, the same key',
    get('/api/v1/walks?limit=1', [...withKey(), ['x-api-key', KEY]]),
    { ...LIST_OK, items: 1 },
  ],
  [
    'Basic auth beside x-api-key',
    get('/api/v1/walks', [
      ['Authorization', 'Basic dXNlcjpwYXNz'],
      ['x-api-key', KEY],
    ]),
    CONFLICT,
  ],
  ['Authorization sent twice', get('/api/v1/walks', [...withKey(), ...withKey()]), INVALID_KEY],
  [
    'x-api-key sent twice',
    get('/api/v1/walks', [
      ['x-api-key', KEY],
      ['x-api-key', KEY],
    ]),
    INVALID_KEY,
  ],
  ['bearer in lower case', get('/api/v1/walks?limit=1', [['Authorization', `bearer ${KEY}`]]), LIST_OK],
  ['BEARER in upper case', get('/api/v1/walks?limit=1', [['Authorization', `BEARER ${KEY}`]]), LIST_OK],
  [
    'doubled spaces after Bearer',
    get('/api/v1/walks?limit=1', [['Authorization', `Bearer  ${KEY}`]]),
    LIST_OK,
  ],
  [
    'spaces around the header value',
    get('/api/v1/walks?limit=1', [['Authorization', `   Bearer ${KEY}   `]]),
    LIST_OK,
  ],
  ['a tab after Bearer', get('/api/v1/walks', [['Authorization', `Bearer\t${KEY}`]]), INVALID_KEY],
  [
    'a second token after the key',
    get('/api/v1/walks', [['Authorization', `Bearer ${KEY} ${KEY}`]]),
    INVALID_KEY,
  ],
  ['Bearer without a key', get('/api/v1/walks', [['Authorization', 'Bearer']]), INVALID_KEY],
  ['a 6 KB key as Bearer', get('/api/v1/walks', withKey(`svc_sk_live_${'A'.repeat(6_144)}`)), INVALID_KEY],
  [
    'a 6 KB key as x-api-key',
    get('/api/v1/walks', [['x-api-key', `svc_sk_live_${'b'.repeat(6_144)}`]]),
    INVALID_KEY,
  ],
  [
    '6 KB of garbage as Bearer',
    get('/api/v1/walks', [['Authorization', `Bearer ${'%'.repeat(6_144)}`]]),
    INVALID_KEY,
  ],
  [
    'Basic auth with the key',
    get('/api/v1/walks', [['Authorization', `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`]]),
    BASIC_AUTH,
  ],
  [
    'Basic auth with user and password',
    get('/api/v1/walks', [['Authorization', 'Basic dXNlcjpwYXNz']]),
    BASIC_AUTH,
  ],
  [
    'the key in the query string only',
    get(`/api/v1/walks?api_key=${KEY}`, []),
    { status: 401, code: 'unauthorized' },
  ],
  [
    'the key with another prefix',
    get('/api/v1/walks', [['x-api-key', KEY.replace('live', 'test')]]),
    INVALID_KEY,
  ],
  // Bodies on GET, 100 KB bodies on POST.
  [
    'a JSON body on GET',
    {
      ...get('/api/v1/walks?limit=1', [...withKey(), ['Content-Type', 'application/json']]),
      body: '{"limit":200}',
    },
    { ...LIST_OK, items: 1 },
  ],
  [
    'a chunked body on GET',
    {
      ...get('/api/v1/walks?limit=1', [...withKey(), ['Transfer-Encoding', 'chunked']]),
      body: '5\r\nhello\r\n0\r\n\r\n',
    },
    { ...LIST_OK, items: 1 },
  ],
  [
    'a 100 KB body on GET',
    { ...get(`/api/v1/walks/${WALK}`, withKey()), body: 'x'.repeat(100_000) },
    DETAIL_OK,
  ],
  // Unread request bytes at close would reset the connection and cut this long answer short.
  [
    'a 100 KB body on GET of the largest walk',
    { ...get(`/api/v1/walks/${LARGEST_WALK}`, withKey()), body: 'x'.repeat(100_000) },
    DETAIL_OK,
  ],
  [
    'a 1 MB body on GET of the largest walk',
    { ...get(`/api/v1/walks/${LARGEST_WALK}`, withKey()), body: 'x'.repeat(1_000_000) },
    DETAIL_OK,
  ],
  [
    // Refused on the declared length, before the bytes arrive.
    'a declared 2 MB body on POST',
    { method: 'POST', target: '/api/v1/walks', headers: [['Content-Length', '2000000']], body: 'x' },
    { status: 413, code: 'payload_too_large' },
  ],
  [
    'a chunked body over 1 MB on GET',
    {
      ...get('/api/v1/walks', [['Transfer-Encoding', 'chunked']]),
      body: `100001\r\n${'x'.repeat(0x100001)}\r\n0\r\n\r\n`,
    },
    { status: 413, code: 'payload_too_large' },
  ],
  [
    'a 100 KB body on POST',
    {
      method: 'POST',
      target: '/api/v1/walks',
      headers: [...withKey(), ['Content-Type', 'application/json']],
      body: `{"a":"${'a'.repeat(100_000)}"}`,
    },
    METHOD,
  ],
  [
    'a 100 KB body on PUT of a walk',
    { method: 'PUT', target: `/api/v1/walks/${WALK}`, headers: withKey(), body: 'x'.repeat(100_000) },
    METHOD,
  ],
  [
    'a malformed JSON body on POST',
    {
      method: 'POST',
      target: '/api/v1/walks',
      headers: [['Content-Type', 'application/json']],
      body: '{"a":',
    },
    METHOD,
  ],
  [
    'Expect: 100-continue on POST',
    {
      method: 'POST',
      target: '/api/v1/walks',
      headers: [['Expect', '100-continue']],
      body: 'x'.repeat(1_000),
    },
    METHOD,
  ],
  ['an unknown Expect', get('/api/v1/walks?limit=1', [...withKey(), ['Expect', 'teapot']]), LIST_OK],
  // Accept and other methods (D-CONTENT, D-METHOD).
  [
    'Accept: application/xml',
    get('/api/v1/walks?limit=1', [...withKey(), ['Accept', 'application/xml']]),
    LIST_OK,
  ],
  [
    'Accept: application/xml on an error',
    get('/api/v1/walks', [['Accept', 'application/xml']]),
    { status: 401, code: 'unauthorized' },
  ],
  [
    'Accept-Encoding: gzip',
    get('/api/v1/walks?limit=1', [...withKey(), ['Accept-Encoding', 'gzip, br']]),
    LIST_OK,
  ],
  ['TRACE', { method: 'TRACE', target: '/api/v1/walks', headers: withKey() }, METHOD],
  [
    'OPTIONS preflight',
    {
      method: 'OPTIONS',
      target: '/api/v1/walks',
      headers: [
        ['Origin', 'https://evil.example'],
        ['Access-Control-Request-Method', 'GET'],
      ],
    },
    METHOD,
  ],
  ['CONNECT', { method: 'CONNECT', target: '127.0.0.1:22' }, METHOD],
  ['a lower-case method', { method: 'get', target: '/api/v1/walks', headers: withKey() }, UNPARSEABLE],
  ['an unknown method', { method: 'BREW', target: '/api/v1/walks' }, UNPARSEABLE],
  // Request lines and framing Node refuses.
  ['HTTP/1.1 without Host', { target: '/api/v1/walks', headers: withKey(), noHost: true }, UNPARSEABLE],
  [
    'HTTP/1.1 without Host, with an unknown Expect',
    { target: '/api/v1/walks', headers: [...withKey(), ['Expect', 'teapot']], noHost: true },
    UNPARSEABLE,
  ],
  [
    'HTTP/1.1 without Host, for a walk',
    { target: `/api/v1/walks/${WALK}`, headers: withKey(), noHost: true },
    UNPARSEABLE,
  ],
  [
    'Content-Length beside Transfer-Encoding',
    {
      ...get('/api/v1/walks', [
        ['Content-Length', '5'],
        ['Transfer-Encoding', 'chunked'],
      ]),
      body: '0\r\n\r\n',
    },
    UNPARSEABLE,
  ],
  [
    '20 KB of headers',
    get('/api/v1/walks', [['X-Big', 'a'.repeat(20_000)]]),
    { status: 431, code: 'headers_too_large' },
  ],
  [
    'an HTTP/2 preface',
    { method: 'PRI', target: '*', version: 'HTTP/2.0', noHost: true, body: 'SM\r\n\r\n' },
    UNPARSEABLE,
  ],
  [
    'HTTP/1.0 without Host',
    { target: '/api/v1/walks?limit=1', headers: withKey(), version: 'HTTP/1.0', noHost: true },
    LIST_OK,
  ],
];

let server: TestServer;
let prototypeBefore: string[];
beforeAll(async () => {
  prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  server = await startTestServer();
});
afterAll(() => server.close());

describe('hostile requests', () => {
  it.each(CASES)('%s', async (_name, request, expected) => {
    const answer = await exchange(request);
    expect(answer.status).toBe(expected.status);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    if ('operation' in expected) {
      const validation = contract.validateResponse(expected.operation, 200, answer.body);
      expect(validation.errors).toEqual([]);
      if (expected.items !== undefined)
        expect((answer.body as { data: unknown[] }).data).toHaveLength(expected.items);
    } else {
      expect(contract.validateSchema('ErrorEnvelope', answer.body).errors).toEqual([]);
      const { error } = answer.body as { error: { code: string; message: string } };
      expect(error.code).toBe(expected.code);
      if (expected.message !== undefined) expect(error.message).toBe(expected.message);
    }
    const everything = JSON.stringify(answer.headers) + answer.text;
    for (const key of Object.values(keys)) expect(everything).not.toContain(key.slice('svc_sk_live_'.length));
  });

  it('drains a request body before answering, so a long answer on a closing connection arrives whole', async () => {
    // Unread request bytes at close make the kernel reset the connection and drop what is unsent.
    const dir = await mkdtemp(join(tmpdir(), 'hostile-docs-'));
    const docsPath = join(dir, 'page.html');
    await writeFile(docsPath, `<!doctype html>${'<p>long page</p>'.repeat(200_000)}`);
    const withPage = await startTestServer({ docsPath });
    try {
      const page = await exchange({ target: '/docs', body: 'x'.repeat(100_000) }, withPage);
      expect(page.status).toBe(200);
      expect(Buffer.byteLength(page.text)).toBe((await stat(docsPath)).size);
    } finally {
      await withPage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cuts off a client that dribbles its headers or its body, with 408 in the envelope', async () => {
    const app = createApp({ dataset, config: { log: false } });
    const slow = createHttpServer(app);
    expect([slow.headersTimeout, slow.requestTimeout]).toEqual([HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS]);
    // Shortened here so the test takes a second, not the production 10 s and 30 s.
    Object.assign(slow, { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 100 });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const { port: slowPort } = slow.address() as AddressInfo;
    try {
      for (const partial of [
        'GET /api/v1/walks HTTP/1.1\r\nHost: x\r\nX-Still-Coming: a',
        `POST /api/v1/walks HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n${'x'.repeat(10)}`,
      ]) {
        const answer = await rawBytes(slowPort, partial);
        expect(answer.status).toBe(408);
        expect(contract.validateSchema('ErrorEnvelope', answer.body).errors).toEqual([]);
        expect((answer.body as { error: { code: string } }).error.code).toBe('request_timeout');
      }
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('still answers afterwards, and no query key polluted Object.prototype', async () => {
    const answer = await exchange(get('/api/v1/walks?limit=3'));
    expect(answer.status).toBe(200);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    const probe = {} as Record<string, unknown>;
    expect([probe.x, probe.y, probe.limit, probe.polluted]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

/** One request on its own connection (`Connection: close`), read to the end; 5 s at most. */
function exchange(request: RawRequest, target: TestServer = server): Promise<RawAnswer> {
  const { method = 'GET', target: path, headers = [], body, version = 'HTTP/1.1', noHost = false } = request;
  const lines = [`${method} ${path} ${version}`];
  if (!noHost) lines.push('Host: 127.0.0.1');
  lines.push('Connection: close');
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const chunked = headers.some(([name]) => name.toLowerCase() === 'transfer-encoding');
  if (body !== undefined && !chunked && !headers.some(([name]) => name.toLowerCase() === 'content-length')) {
    lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
  }
  const wire = Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`, 'latin1');
  return rawBytes(Number(new URL(target.baseUrl).port), wire, `${method} ${path.slice(0, 80)}`);
}

/** Sends the bytes, reads until the server closes (5 s at most), and parses the final answer. */
function rawBytes(port: number, wire: Buffer | string, label = 'the request'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(typeof wire === 'string' ? Buffer.from(wire, 'latin1') : wire),
    );
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within 5 s to ${label}`));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while a large body is still being written; the answer is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

/** The final answer: interim `1xx` heads (e.g. `100 Continue`) are skipped. */
function parseAnswer(wire: Buffer): RawAnswer {
  let raw = wire;
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString('latin1'))) {
    raw = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
  }
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1)
    throw new Error(`no HTTP answer, got ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const length = Number(headers['content-length'] ?? raw.length - end - 4);
  const text = raw.subarray(end + 4, end + 4 + length).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers, text, body };
}
