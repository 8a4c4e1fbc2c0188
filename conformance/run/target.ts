/**
 * One module decides what the suite talks to and how: the embedded reference server when no base
 * URL is given (in the package, the sandbox package's, when it is installed), or the configured
 * deployment; under `--profile mock`, a Prism mock with placeholder keys. It decides which keys a
 * target needs and tells when a "live" target answers like a mock.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ContractValidator } from '../../spec/contract.ts';
import { resolveRef } from '../../spec/contract.ts';
import { KEY_PREFIX, WEB_BASE_URL_NAME, CREDENTIAL_KEY_NAMES } from '../../spec/facts.ts';
import { ConfigError } from '../core/config-error.ts';
import { PRIMARY } from '../core/key-uses.ts';
import type { OperationModel } from '../core/spec-model.ts';
import type { Exchange } from '../core/exchange.ts';
import type { KeyName, SuiteConfig } from '../core/configuration.ts';

/** What the configuration says of the target before it is resolved: no base URL means embedded. */
export type TargetOptions = Omit<SuiteConfig, 'baseUrl' | 'embedded'> & { baseUrl?: string };

export interface Target {
  config: SuiteConfig;
  /**
   * The keys output must never show: the configured ones and the embedded server's demo keys. The
   * placeholders `--profile mock` gives are public words, and left out: each holds the variable
   * names themselves (`CONFORMANCE`, in another letter case), and redacted they would garble them.
   */
  secrets: Partial<Record<KeyName, string>>;
  /** Stops what was started for the run (the embedded server); nothing for a given base URL. */
  close: () => Promise<void>;
}

/**
 * The npm package that brings the embedded reference server to the packaged suite
 * (`tools/packaging/packages.ts` points `reference-server/start.ts` at it).
 */
export const EMBEDDED_SERVER_PACKAGE = 'canvassing-sandbox';

/**
 * Which keys the target needs before anything is sent: a deployment checked live needs the primary
 * key (the embedded server brings its demo keys, a mock accepts any key).
 */
export function requireTargetKeys(options: TargetOptions): void {
  if (options.baseUrl === undefined || options.profile !== 'live' || options.keys[PRIMARY.key]) return;
  throw new ConfigError(
    `${PRIMARY.key} is not set: export it (the key of the campaign under test, with the scopes the spec's operations require)`,
  );
}

/**
 * The configured target, or the embedded default when no base URL is set: the reference server
 * in-process on a free port, checked with its demo credentials.
 */
export async function resolveTarget(options: TargetOptions): Promise<Target> {
  if (options.baseUrl !== undefined) {
    const config: SuiteConfig = { ...options, baseUrl: options.baseUrl, embedded: false };
    return { config: withMockKeys(config), secrets: options.keys, close: async () => undefined };
  }
  if (options.profile === 'mock') {
    throw new ConfigError(
      '--profile mock needs --base-url of a running mock (npm run mock serves one on http://127.0.0.1:4010)',
    );
  }
  const server = await startEmbedded();
  const { [WEB_BASE_URL_NAME]: webBaseUrl, ...keys } = server.credentials;
  return {
    config: { ...options, baseUrl: server.baseUrl, keys, webBaseUrl, embedded: true },
    secrets: keys,
    close: () => server.close(),
  };
}

/**
 * The reference server, in-process. The packaged suite has none of its own: it runs the sandbox
 * package's when that is installed beside it, and otherwise says how to name a deployment.
 */
async function startEmbedded() {
  try {
    const { startReferenceServer } = await import('../../reference-server/start.ts');
    return await startReferenceServer({ host: '127.0.0.1', port: 0, log: false });
  } catch (error) {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    // Only the package itself missing: a sandbox that fails inside is its own error.
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(message).includes(EMBEDDED_SERVER_PACKAGE)) throw error;
    throw new ConfigError(
      `no deployment to check: give its base URL with --base-url URL (or CONFORMANCE_BASE_URL) and its key in ${PRIMARY.key}; ` +
        `or install ${EMBEDDED_SERVER_PACKAGE} beside this package to check the embedded reference server`,
    );
  }
}

/**
 * The mock accepts any key, so under `--profile mock` every key name gets a placeholder (not a
 * secret): checks then run as they would live, unless their `mock` declaration skips them.
 */
function withMockKeys(config: SuiteConfig): SuiteConfig {
  if (config.profile !== 'mock') return config;
  const keys: Partial<Record<KeyName, string>> = { ...config.keys };
  for (const name of CREDENTIAL_KEY_NAMES)
    keys[name] ??= `${KEY_PREFIX}mock${name.toLowerCase().replaceAll('_', '')}`;
  return { ...config, keys };
}

/**
 * Worth a warning: a live run whose collection holds only the items of the spec's own examples of
 * that operation is talking to a mock, and would blame the deployment for what a mock cannot show.
 */
export function mockWarning(
  config: SuiteConfig,
  list: Exchange,
  op: Pick<OperationModel, 'operationId'>,
  contract: ContractValidator,
): string | undefined {
  if (config.profile !== 'live') return undefined;
  const items = (list.response?.json as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const known = exampleItemIds(contract, op.operationId);
  if (!items.every((item) => known.has(String((item as { id?: unknown } | null)?.id)))) return undefined;
  return `${config.baseUrl} answers the spec's own example items of ${op.operationId}: it looks like a mock; with a mock, use --profile mock`;
}

/** The item ids of an operation's examples of its 200 answer. */
function exampleItemIds(contract: ContractValidator, operationId: string): Set<string> {
  const ids = new Set<string>();
  const response = contract.operation(operationId).definition.responses?.['200'];
  if (!response) return ids;
  const media = resolveRef<OpenAPIV3_1.ResponseObject>(contract.doc, response).content?.['application/json'];
  const values = [
    media?.example,
    ...Object.values(media?.examples ?? {}).map(
      (ref) => resolveRef<OpenAPIV3_1.ExampleObject>(contract.doc, ref).value,
    ),
  ];
  for (const value of values) {
    const data = (value as { data?: unknown } | undefined)?.data;
    for (const item of Array.isArray(data) ? data : []) ids.add(String((item as { id?: unknown }).id));
  }
  return ids;
}
