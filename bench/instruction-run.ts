/**
 * The instruction counts of one data set: the reference server and both floors, each under
 * Cachegrind, on every benchmarked answer (list and largest detail, per coding). Each floor serves
 * every coding's bytes from one process, each at its own path (`?coding=` added), so that it needs
 * one baseline for all of them, as the reference server does; the floors answer by path alone, so
 * the longer path costs them nothing measurable.
 */
import { join } from 'node:path';
import type { Floor } from './floor-bundles.ts';
import {
  countInstructions,
  type CountedRequest,
  type CountedServer,
  type CountSettings,
  type InstructionCount,
} from './cachegrind.ts';
import { CODINGS, type Coding, type CountedTarget, type Endpoint } from './figures.ts';
import { type FloorRoute, type Served, writeServedBytes } from './served.ts';

export interface CountPlan {
  /** Walks of the reference server's data set. */
  walks: number;
  /** Each coding's answers, as the reference server sent them. */
  answers: Partial<Record<Coding, Record<Endpoint, Served>>>;
  /** The reference server's key header. */
  auth: Record<string, string>;
  /** Where the floors' bytes are written. */
  work: string;
  /** The floors' bundles (`bundleFloors`). */
  bundles: Record<Floor, string>;
  referenceLauncher: string;
  settings: CountSettings;
  progress: (message: string) => void;
}

/** `${endpoint}/${coding}` → each target's count. */
export type CountedRows = Record<string, Partial<Record<CountedTarget, InstructionCount>>>;

export const rowKey = (endpoint: Endpoint, coding: Coding) => `${endpoint}/${coding}`;

/** The path a floor serves one coding's answer at. */
export function floorPath(path: string, coding: Coding): string {
  return `${path}${path.includes('?') ? '&' : '?'}coding=${coding}`;
}

interface Kind {
  key: string;
  coding: Coding;
  served: Served;
}

function kindsOf(plan: CountPlan): Kind[] {
  return (Object.entries(plan.answers) as [Coding, Record<Endpoint, Served>][]).flatMap(([coding, answers]) =>
    (['list', 'detail'] as const).map((endpoint) => ({
      key: rowKey(endpoint, coding),
      coding,
      served: answers[endpoint],
    })),
  );
}

export async function countDataset(plan: CountPlan): Promise<CountedRows> {
  const kinds = kindsOf(plan);
  const rows: CountedRows = Object.fromEntries(kinds.map((kind) => [kind.key, {}]));
  const record = (target: CountedTarget, counts: Record<string, InstructionCount>) => {
    for (const [key, count] of Object.entries(counts)) (rows[key] ??= {})[target] = count;
  };
  const sent = (coding: Coding) => ({ 'Accept-Encoding': CODINGS[coding] });
  const referenceRequests: CountedRequest[] = kinds.map(({ key, coding, served }) => ({
    name: key,
    path: served.path,
    headers: { ...plan.auth, ...sent(coding) },
  }));
  const reference = {
    name: 'reference server',
    script: plan.referenceLauncher,
    args: ['--port', '{port}', '--walks', String(plan.walks)],
    probePath: '/api/v1/walks',
  };
  const bytesDir = join(plan.work, 'counted-floors');
  const routes: FloorRoute[] = kinds.map(({ key, coding, served }) => ({
    name: key.replace('/', '-'),
    path: floorPath(served.path, coding),
    served,
  }));
  writeServedBytes(bytesDir, routes);
  const floorRequests: CountedRequest[] = kinds.map(({ key, coding, served }) => ({
    name: key,
    path: floorPath(served.path, coding),
    headers: sent(coding),
  }));
  const floor = (target: Floor) => ({
    name: target === 'nodeFloor' ? 'Node floor' : 'Express floor',
    script: plan.bundles[target],
    args: ['--port', '{port}', '--bytes', bytesDir],
    probePath: routes[0]?.path ?? '/',
  });
  const count = async (target: CountedTarget, server: CountedServer, requests: CountedRequest[]) =>
    record(target, await countInstructions(server, requests, plan.settings, plan.progress));
  // The three targets are counted side by side: a count does not depend on the time it takes
  // (one request at a time, the compiler on the main thread), and each process spends most of its
  // wall time starting under Valgrind.
  await Promise.all([
    count('reference', reference, referenceRequests),
    count('nodeFloor', floor('nodeFloor'), floorRequests),
    count('expressFloor', floor('expressFloor'), floorRequests),
  ]);
  return rows;
}
