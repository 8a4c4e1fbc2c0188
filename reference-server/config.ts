/** Configuration of the reference app, checked once when the app is built. */
import { fileURLToPath } from 'node:url';
import type { RateLimitConfig } from './auth/rate-limit.ts';
import type { Logger } from 'pino';
import { createLogger } from './log.ts';
import type { ClockConfig } from './clock/sandbox-clock.ts';
import { LIVE_SPEC_FILE } from './spec-files.ts';
import { DEFAULT_WEB_BASE_URL, normalizeWebBaseUrl } from './web-base-url.ts';
import type { TurbulenceConfig } from './turbulence.ts';
import { DEFAULT_VARIANT, type Variant } from './variants/variant.ts';

const DEFAULT_DOCS_PATH = fileURLToPath(new URL('../spec/generated/api-reference.html', import.meta.url));

export interface ServerConfig {
  /** `{web_base_url}` of `web_url` and `app_link`; no trailing slash, query or fragment. */
  webBaseUrl: string;
  /** The logger of the request lines (`log.ts`); `false` for none. Default: JSON lines on stdout. */
  log: Logger | false;
  /** Per-key rate limit (D-RATE); off by default. */
  rateLimit: RateLimitConfig | false;
  /** The spec served at `/openapi.yaml`. */
  specPath: string;
  /** The page served at `/docs`. */
  docsPath: string;
  /** Other legal choices on the open points (`--variant`); default: ours. */
  variant: Variant;
  /** Added latency and injected faults (`--latency`, `--faults`); off by default. */
  turbulence: TurbulenceConfig | false;
  /** The canvassing day on a clock (`--clock`), and `/sandbox/clock`; off by default: the data never changes. */
  clock: ClockConfig | false;
  /**
   * The partner files' text (Postman collection and environment, `.http`), made from the served
   * spec; default: the files the docs build wrote beside the page.
   */
  partnerFiles: PartnerFiles | undefined;
  /** Whether `Prefer: code=NNN` steers a request with an accepted key to that error (`steering.ts`). Default true. */
  steering: boolean;
}

/** The text of each partner file, by its name in `PARTNER_FILE_NAMES`. */
export type PartnerFiles = Readonly<Record<'collection' | 'environment' | 'http', string>>;

export function resolveConfig(config: Partial<ServerConfig> = {}): ServerConfig {
  const rateLimit = config.rateLimit ?? false;
  if (rateLimit && !(Number.isInteger(rateLimit.requestsPerMinute) && rateLimit.requestsPerMinute > 0)) {
    throw new RangeError('rateLimit.requestsPerMinute must be a positive integer');
  }
  return {
    webBaseUrl: normalizeWebBaseUrl(config.webBaseUrl ?? DEFAULT_WEB_BASE_URL),
    log: config.log === undefined ? createLogger() : config.log,
    rateLimit,
    specPath: config.specPath ?? LIVE_SPEC_FILE,
    docsPath: config.docsPath ?? DEFAULT_DOCS_PATH,
    variant: config.variant ?? DEFAULT_VARIANT,
    turbulence: config.turbulence ?? false,
    clock: config.clock ?? false,
    steering: config.steering ?? true,
    partnerFiles: config.partnerFiles,
  };
}
