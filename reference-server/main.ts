/**
 * `npm run reference-server -- [flags]`: the only place that listens on a fixed port. The flags and
 * what the command prints instead of serving are `command.ts`'s; see `--help`, and
 * `docs/contract.md` for the commands it must keep.
 */
import type { Logger } from 'pino';
import { onStopSignal } from '../command-line/signals.ts';
import { commandLine, type Flags } from './command.ts';
import { createLogger } from './log.ts';
import type { RunningServer } from './start.ts';
import { variantBanner } from './variant-flags.ts';

async function main(argv: string[]): Promise<void> {
  const flags = commandLine(argv);
  if (typeof flags === 'number') {
    process.exitCode = flags;
    return;
  }

  const log = createLogger();
  const startedAt = performance.now();
  let running: RunningServer;
  try {
    running = await start(flags, log);
  } catch (error) {
    // A spec it cannot serve is the caller's input: one line naming the operation and why, exit 2.
    const unservable = (error as Error).name === 'UnservableSpec';
    process.stderr.write(`reference-server: cannot start: ${(error as Error).message}\n`);
    process.exitCode = unservable ? 2 : 1;
    return;
  }
  log.info(
    {
      url: running.baseUrl,
      seed: flags.seed,
      walks: flags.walks,
      max_stops: flags.maxStops,
      web_base_url: flags.webBaseUrl,
      ...(flags.spec ? { spec: flags.spec } : {}),
      ...(flags.variant || flags.turbulence || flags.clock ? { serving: variantBanner(flags) } : {}),
      startup_ms: Math.round(performance.now() - startedAt),
    },
    'listening',
  );
  stopOnSignals(running, log);
}

async function start(flags: Flags, log: Logger): Promise<RunningServer> {
  // Loaded here so that printing alone needs neither Express nor a data set.
  const { startReferenceServer } = await import('./start.ts');
  return startReferenceServer({
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    walks: flags.walks,
    maxStops: flags.maxStops,
    webBaseUrl: flags.webBaseUrl,
    log: flags.quiet ? false : log,
    ...(flags.rateLimit ? { rateLimit: { requestsPerMinute: flags.rateLimit } } : {}),
    ...(flags.variant ? { variant: flags.variant } : {}),
    ...(flags.turbulence ? { turbulence: flags.turbulence } : {}),
    ...(flags.clock ? { clock: flags.clock } : {}),
    ...(flags.spec ? { spec: flags.spec } : {}),
  });
}

/** SIGINT or SIGTERM: stop after open requests finish, once. */
function stopOnSignals(running: RunningServer, log: Logger): void {
  onStopSignal((signal) => {
    log.info({ signal }, 'shutting down');
    running.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: Error) => {
        log.error({ error: error.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

await main(process.argv.slice(2));
