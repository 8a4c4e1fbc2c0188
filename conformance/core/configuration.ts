/**
 * The configuration's vocabulary: what a run is told (the suite's settings, the keys by name, the
 * pace, the way to the target). It imports nothing of the suite but its names, so every layer can
 * speak it.
 */
import type { CredentialKeyName } from '../../spec/facts.ts';

/** A configured key's variable name (CONTRACT.md); the names are `CREDENTIAL_KEY_NAMES` of spec/facts.ts. */
export type KeyName = CredentialKeyName;

export interface SuiteConfig {
  /** Without a trailing slash; may carry a path prefix. */
  baseUrl: string;
  profile: 'live' | 'mock';
  strict: boolean;
  /** Configured keys by name; the values are secrets and never leave the client. */
  keys: Partial<Record<KeyName, string>>;
  /** The `{web_base_url}` the deployment should use, when the tester knows it. */
  webBaseUrl?: string;
  concurrency: number;
  timeoutMs: number;
  maxRequests: number;
  maxResponseBytes: number;
  /** Longest wait a 429's (or a 503's) `Retry-After` may impose before one retry. */
  maxRetryWaitMs: number;
  /**
   * `--retries N`: how many times a failed request is tried again (`transport/retry.ts`: a 503 or a
   * reset with no answer on GET and HEAD; a throttled answer is waited out more often, unless 0).
   * Every attempt counts in the budget.
   */
  retries: number;
  /**
   * `--max-duration`: the longest a run may take, in milliseconds; past it nothing more is sent or
   * waited for, and what was still waiting is named. Undefined: no bound (in-process tests).
   */
  maxDurationMs?: number;
  /** `--rate-limit N/s` or `N/min`: request starts allowed in any one-second (or one-minute) window. */
  rateLimit?: RateLimit;
  /**
   * `--sample N`: judge N records per sweep, chosen by the seed; undefined (the default) judges every
   * record the deployment serves.
   */
  sample?: number;
  /** `--seed S`: drives every random choice (limit values, samples) so a failure reproduces. */
  seed: number;
  /** Only checks whose id starts with one of these (for focused runs). */
  only?: string[];
  /** The target is the in-process reference server started because no base URL was given. */
  embedded: boolean;
  /** `--spec FILE`: the OpenAPI document to judge against (default: the bundled spec/openapi.yaml). */
  specPath?: string;
  /** `--depth full`: the whole attacker's catalogue on every refusal and target (default: its default tier). */
  depth?: 'default' | 'full';
  /**
   * `--allow-destructive`: the keyed catalogue also sends a DELETE to an item that exists (never
   * otherwise); a deployment that accepts it loses that item.
   */
  allowDestructive?: boolean;
  /** How the target is reached: proxy, TLS trust and identity, gateway headers (`reach.ts`). */
  reach?: Reach;
}

/** `--rate-limit`: at most `requests` request starts in any window of `perMs` (1,000 or 60,000) ms. */
export interface RateLimit {
  requests: number;
  perMs: 1_000 | 60_000;
}

/** A proxy URL and where it was configured (`--proxy`, `HTTPS_PROXY`...), for messages. */
export interface ProxySetting {
  url: string;
  from: string;
  /** The variable the password came from (`CONFORMANCE_PROXY_PASSWORD`), when not from the URL. */
  passwordVariable?: string;
}

/**
 * What stands between the suite and the target in a company network, from flags and environment
 * (`reach.ts`); the client composes its undici dispatcher from it. Values here are secrets where
 * marked: they never leave the client and the redactor.
 */
export interface Reach {
  /** `--proxy` / `CONFORMANCE_PROXY`, which applies to either scheme. */
  proxy?: ProxySetting;
  /** `http_proxy` / `HTTP_PROXY` and `https_proxy` / `HTTPS_PROXY`, by the target's scheme. */
  httpProxy?: ProxySetting;
  httpsProxy?: ProxySetting;
  /** `no_proxy` / `NO_PROXY`: hosts never proxied (curl's rules). */
  noProxy?: string;
  /** `--ca-file`: PEM added to the trusted roots; `variable` when it came from `CONFORMANCE_CA_FILE`. */
  ca?: { file: string; pem: string; variable?: string };
  /** `--insecure`: the target's certificate is not verified (every report says so). */
  insecure: boolean;
  /** `--cert` and `--key` (PEM), with the passphrase read from the variable `--key-passphrase-env` names. */
  clientCert?: {
    certFile: string;
    cert: string;
    keyFile: string;
    key: string;
    passphrase?: string;
    passphraseVariable?: string;
    /** Set when the file came from `CONFORMANCE_CERT_FILE` / `CONFORMANCE_KEY_FILE`. */
    certVariable?: string;
    keyVariable?: string;
  };
  /** `--header` / `CONFORMANCE_HEADERS`: sent on every request; values are secrets. */
  headers: GatewayHeader[];
}

export interface GatewayHeader {
  name: string;
  /** A secret: reports show `shown`, never this. */
  value: string;
  /**
   * The value as reproductions and the HAR show it, for the shell to expand: as written when it
   * named variables (`$GATEWAY_TOKEN`), else the variable the suite also reads it from
   * (`$CONFORMANCE_HEADER_X_GATEWAY_TOKEN`).
   */
  shown: string;
  /** The variables whose values make it up, by name: the redactor replaces each by its name. */
  secrets: Record<string, string>;
}
