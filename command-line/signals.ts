/**
 * How every long-running command stops: on the first SIGINT or SIGTERM, once. A terminal's Ctrl-C
 * can reach a process twice (from the terminal, and forwarded by npm) and reaches its children
 * directly as well: the first signal starts the stop, later ones change nothing. Every stop is
 * bounded in time, so no second Ctrl-C is ever needed.
 */

/** The signals that stop a command. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Calls `stop` with the first stop signal the process gets; the listeners stay, so later ones are ignored. */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): void {
  let stopping = false;
  const first = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stop(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, first);
}
