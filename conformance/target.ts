/**
 * One module decides what the suite talks to: the embedded reference server when no base URL is
 * given, or the configured deployment; under `--profile mock`, a Prism mock with placeholder keys.
 * It also states, as data, how each profile asks for the answers the checks need (a mock serves a
 * 403 or an empty list only when asked with `Prefer`), so no check tests the profile.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ContractValidator } from '../spec/contract.ts';
import { KEY_PREFIX, resolveRef, WEB_BASE_URL_NAME } from '../spec/contract.ts';
import { ConfigError } from './config-error.ts';
import type { CliOptions } from './config.ts';
import { EMPTY_CAMPAIGN, NO_SCOPE, PRIMARY } from './key-uses.ts';
import type { KeyName, RequestSpec, SuiteConfig } from './types.ts';
import { KEY_NAMES } from './types.ts';

export interface Target {
  config: SuiteConfig;
  /** Stops what was started for the run (the embedded server); nothing for a given base URL. */
  close: () => Promise<void>;
}

/** Credentials and headers of a request, without its path. */
export type Asking = Omit<RequestSpec, 'path' | 'query'>;

/** How the target is asked for the answers the checks judge. */
export interface TargetProfile {
  /** A key that lacks `walks:read` (live: the no-scope key; mock: `Prefer: code=403`). */
  noScope: Asking;
  /** A campaign without walks (live: the empty campaign's key; mock: the `empty` example). */
  emptyCampaign: Asking;
  /** Extra headers for an id that names no walk (mock: `Prefer: code=404`). */
  unknownWalkHeaders?: Record<string, string>;
  /**
   * Headers that fetch this walk's detail, or undefined when the target cannot serve it (the mock
   * serves only the spec's detail examples, each on `Prefer: example=NAME`).
   */
  detailHeaders(id: string): Record<string, string> | undefined;
}

export function profileOf(config: Pick<SuiteConfig, 'profile'>, contract: ContractValidator): TargetProfile {
  if (config.profile === 'live') {
    return {
      noScope: { auth: NO_SCOPE },
      emptyCampaign: { auth: EMPTY_CAMPAIGN },
      detailHeaders: () => ({}),
    };
  }
  const examples = detailExamplesOf(contract);
  return {
    noScope: { auth: PRIMARY, headers: { Prefer: 'code=403' } },
    emptyCampaign: { auth: PRIMARY, headers: { Prefer: 'example=empty' } },
    unknownWalkHeaders: { Prefer: 'code=404' },
    detailHeaders: (id) => {
      const name = examples.get(id);
      return name === undefined ? undefined : { Prefer: `example=${name}` };
    },
  };
}

/**
 * The configured target, or the embedded default when no base URL is set: the reference server
 * in-process on a free port, checked with its demo credentials.
 */
export async function resolveTarget(options: CliOptions['config']): Promise<Target> {
  if (options.baseUrl !== undefined) {
    const config: SuiteConfig = { ...options, baseUrl: options.baseUrl, embedded: false };
    return { config: withMockKeys(config), close: async () => undefined };
  }
  if (options.profile === 'mock') {
    throw new ConfigError(
      '--profile mock needs --base-url of a running mock (npm run mock serves one on http://127.0.0.1:4010)',
    );
  }
  const { startReferenceServer } = await import('../reference-server/start.ts');
  const server = await startReferenceServer({ host: '127.0.0.1', port: 0, log: false });
  const { [WEB_BASE_URL_NAME]: webBaseUrl, ...keys } = server.credentials;
  return {
    config: {
      ...options,
      baseUrl: server.baseUrl,
      keys,
      webBaseUrl,
      embedded: true,
    },
    close: () => server.close(),
  };
}

/**
 * The mock accepts any key, so under `--profile mock` every key name gets a placeholder (not a
 * secret): checks then run as they would live, unless their `mock` declaration skips them.
 */
export function withMockKeys(config: SuiteConfig): SuiteConfig {
  if (config.profile !== 'mock') return config;
  const keys: Partial<Record<KeyName, string>> = { ...config.keys };
  for (const name of KEY_NAMES) keys[name] ??= `${KEY_PREFIX}mock${name.toLowerCase().replaceAll('_', '')}`;
  return { ...config, keys };
}

/** Walk id → name of the spec's detail example for it (Prism serves it on `Prefer: example=`). */
function detailExamplesOf(contract: ContractValidator): Map<string, string> {
  const map = new Map<string, string>();
  const response = contract.operation('getWalk').definition.responses?.['200'];
  if (!response) return map;
  const examples = resolveRef<OpenAPIV3_1.ResponseObject>(contract.doc, response).content?.[
    'application/json'
  ]?.examples;
  for (const [name, ref] of Object.entries(examples ?? {})) {
    const value = resolveRef<OpenAPIV3_1.ExampleObject>(contract.doc, ref).value as {
      data?: { id?: unknown };
    };
    if (typeof value?.data?.id === 'string') map.set(value.data.id, name);
  }
  return map;
}
