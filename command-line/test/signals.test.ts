/**
 * A command stops on its first SIGINT or SIGTERM, once: a second signal, the same or the other,
 * neither starts the stop again nor kills the process (Node's default for a signal nobody listens to).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { onStopSignal, STOP_SIGNALS } from '../signals.ts';

const before = new Map(STOP_SIGNALS.map((signal) => [signal, process.listeners(signal)]));

afterEach(() => {
  for (const signal of STOP_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.includes(listener)) process.off(signal, listener);
    }
  }
});

describe('onStopSignal', () => {
  it.each(STOP_SIGNALS)('stops once on %s, and later signals of either kind change nothing', (signal) => {
    const stops: NodeJS.Signals[] = [];
    onStopSignal((received) => stops.push(received));
    process.emit(signal, signal);
    for (const later of [...STOP_SIGNALS, signal]) process.emit(later, later);
    expect(stops).toEqual([signal]);
  });

  it('keeps listening after the first signal, so a second one cannot kill the process', () => {
    const counts = () => STOP_SIGNALS.map((signal) => process.listenerCount(signal));
    const start = counts();
    onStopSignal(() => undefined);
    process.emit('SIGINT', 'SIGINT');
    expect(counts()).toEqual(start.map((count) => count + 1));
  });
});
