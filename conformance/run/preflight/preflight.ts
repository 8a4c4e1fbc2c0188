/**
 * The pre-flight: before any check, one look at the list route with the primary key, to tell the
 * tester's setup mistakes from the deployment's faults. A target that cannot be reached or never
 * answers, a rejected key, a base URL that already holds the API prefix, or a list route that does
 * not answer JSON stop the run (exit 2) with one or two lines saying what is wrong and what to try;
 * the checks would only blame the deployment for them. Its requests go through the run's client,
 * so they count in the budget, appear in the HAR, and the list it fetched is the one the checks use
 * (the client memoizes it): on a healthy target the pre-flight costs no request of its own.
 */
import { errorEnvelopeProblem } from '../../core/answers.ts';
import type { OperationModel, SpecModel } from '../../core/spec-model.ts';
import type { HttpClient } from '../../transport/client.ts';
import { PRIMARY } from '../../core/key-uses.ts';
import { shownProxy } from '../../transport/reach.ts';
import { mockWarning } from '../target.ts';
import type { PreflightSummary } from '../../core/report-model.ts';
import type { ResponseData } from '../../core/exchange.ts';
import type { SuiteConfig } from '../../core/configuration.ts';
import { noAnswerStop } from './no-answer.ts';
import { acceptedInOtherHeader } from './other-header.ts';

type Finding = Pick<PreflightSummary, 'stop' | 'warnings'>;

export async function preflight(
  client: HttpClient,
  config: SuiteConfig,
  spec: SpecModel,
): Promise<PreflightSummary> {
  const started = performance.now();
  const sentBefore = client.sent;
  const finding = await diagnose(client, config, spec);
  return {
    requests: client.sent - sentBefore,
    durationMs: Math.round(performance.now() - started),
    ...finding,
  };
}

/** The operation the pre-flight asks: the first live collection, or the first live GET without parameters. */
function firstOperation(spec: SpecModel): OperationModel | undefined {
  return (
    spec.live.find((op) => op.kind === 'collection') ?? spec.live.find((op) => op.pathParameters.length === 0)
  );
}

async function diagnose(client: HttpClient, config: SuiteConfig, spec: SpecModel): Promise<Finding> {
  const op = firstOperation(spec);
  if (!op) return { warnings: [] };
  const API_PREFIX = spec.apiPrefix;
  const list = await client.send({ path: op.path, auth: PRIMARY });
  const url = list.request.url;
  if (list.error)
    return { stop: await noAnswerStop(client, config, list.error, `GET ${op.path}`), warnings: [] };
  const response = list.response as ResponseData;
  if (response.status === 404 || !isJson(response)) {
    const prefixed = await prefixStop(client, config, op.path, API_PREFIX);
    if (prefixed) return { stop: prefixed, warnings: [] };
  }
  const inFront =
    (response.status === 401 || response.status === 403) && errorEnvelopeProblem(spec, response);
  if (inFront) return { stop: gatewayStop(url, response, config), warnings: [] };
  if (!isJson(response)) return { stop: notJsonStop(url, response, client, config), warnings: [] };
  const warnings: string[] = [];
  if (response.status === 401 || response.status === 403) {
    const otherHeader = await acceptedInOtherHeader(client, op.path, response.status);
    if (!otherHeader) return { stop: keyStop(response, op), warnings: [] };
    warnings.push(otherHeader);
  }
  if (response.status === 404) return { stop: notFoundStop(url, response, spec, API_PREFIX), warnings: [] };
  if (config.reach?.insecure && config.baseUrl.startsWith('https:')) {
    warnings.push(`--insecure: the TLS certificate of ${config.baseUrl} was not verified`);
  }
  const mock = mockWarning(config, list, op, spec.contract);
  if (mock) warnings.push(mock);
  return { warnings };
}

/**
 * The operation's path without the API prefix answers where the whole path does not (for the
 * walks list, `BASE/walks` where `BASE/api/v1/walks` does not): the base URL already holds the prefix.
 */
async function prefixStop(
  client: HttpClient,
  config: SuiteConfig,
  path: string,
  API_PREFIX: string,
): Promise<string | undefined> {
  if (!API_PREFIX) return undefined;
  const probe = await client.send({ path: path.slice(API_PREFIX.length), auth: PRIMARY });
  const answer = probe.response;
  if (!answer || answer.status === 404 || !isJson(answer)) return undefined;
  const base = config.baseUrl;
  const fixed = base.endsWith(API_PREFIX) ? base.slice(0, -API_PREFIX.length) : undefined;
  return (
    `the base URL must not include ${API_PREFIX}: ${base}${path.slice(API_PREFIX.length)} answers where ${base}${path} does not.\n` +
    (fixed ? `Use --base-url ${fixed}` : `Use the URL that ${API_PREFIX} hangs from as --base-url.`)
  );
}

function keyStop(response: ResponseData, op: OperationModel): string {
  const code = (response.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  const status = `${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
  const what =
    response.status === 403
      ? `check ${PRIMARY.key} has scope ${op.requiredScopes.join(' and ')} and belongs to the target`
      : `check ${PRIMARY.key} and the target`;
  return `the key was rejected (${status}) on GET ${op.path}: ${what} (--base-url).`;
}

/**
 * A 401 or 403 that is not the API's error envelope comes from something in front of the API (a
 * gateway, an access proxy, a login wall): the key was never judged.
 */
function gatewayStop(url: string, response: ResponseData, config: SuiteConfig): string {
  const given = config.reach?.headers.map((h) => h.name) ?? [];
  const start = response.body.trim().slice(0, 40).replace(/\s+/g, ' ');
  return (
    `GET ${url} answered ${response.status} from something in front of the API, not its error envelope${start ? ` (it starts ${JSON.stringify(start)})` : ''}.\n` +
    (given.length > 0
      ? `Does it need another --header, or another value of ${given.join(', ')}? The API key goes in ${PRIMARY.key}, not a --header.`
      : `Does it need a --header 'Name: value' (a gateway's token)? The API key goes in ${PRIMARY.key}, not a --header.`)
  );
}

/** The list route answers 404: the API (or a gateway) is there, but not at this path. */
function notFoundStop(url: string, response: ResponseData, spec: SpecModel, API_PREFIX: string): string {
  const envelope = errorEnvelopeProblem(spec, response) === undefined;
  const code = (response.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  const who = envelope
    ? `in the API's own error envelope${typeof code === 'string' ? ` (${code})` : ''}: the API answers, but its list route is not at this path`
    : "in JSON that is not the API's error envelope";
  return (
    `GET ${url} answered 404 ${who}.\n` +
    `Is the path prefix right? --base-url is the URL ${API_PREFIX || '/'} hangs from (https://host/prefix behind a gateway).`
  );
}

function notJsonStop(url: string, response: ResponseData, client: HttpClient, config: SuiteConfig): string {
  const location = response.headers.location;
  if (response.status >= 300 && response.status < 400) {
    return (
      `GET ${url} answered ${response.status}, a redirect${location ? ` to ${location}` : ''}, not JSON; the suite never follows one (a key must not travel).\n` +
      'Use the URL the API answers at as --base-url (https rather than http?).'
    );
  }
  const type = response.contentType ?? 'no content type';
  const start = response.body.trim().slice(0, 40).replace(/\s+/g, ' ');
  const first = `GET ${url} answered ${response.status} ${type}, not JSON${start ? ` (it starts ${JSON.stringify(start)})` : ''}.\n`;
  if (client.proxy && response.status >= 502 && response.status <= 504) {
    // Squid says why in a header of its own (ERR_DNS_FAIL: the proxy could not resolve the host).
    const reason = response.headers['x-squid-error'];
    const said = reason ? ` It says X-Squid-Error: ${reason}.` : '';
    const what = reason && /DNS/i.test(reason) ? 'resolve the host name' : 'reach the target';
    return `${first}The proxy ${shownProxy(client.proxy)} (${client.proxy.from}) could not ${what}.${said} Check the host name, or NO_PROXY if it is reached directly.`;
  }
  if (/certificate/i.test(response.body) && response.status === 400) {
    // A TLS terminator (nginx) that checks client certificates answers 400 when one is missing or refused.
    const cert = config.reach?.clientCert;
    return cert
      ? `${first}It did not accept the client certificate --cert ${cert.certFile}: check it is signed by a CA the server trusts (its dates were checked here).`
      : `${first}It seems to require a client certificate: give one with --cert FILE --key FILE (PEM).`;
  }
  return `${first}Check --base-url points at the API, not a web app, a login page or a proxy.`;
}

/**
 * JSON, or content the deployment declares JSON: a body that fails to parse under a JSON content
 * type is the deployment's fault, judged by the checks, not a wrong target.
 */
function isJson(response: ResponseData): boolean {
  return response.json !== undefined || /^application\/(.+\+)?json$/.test(response.mediaType ?? '');
}
