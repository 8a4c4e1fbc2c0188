/**
 * Which documented operation an exchange belongs to, matched against the spec's path templates, so
 * the traffic checks know which schema, statuses and content types apply.
 */
import type { ContractValidator, Operation } from '../spec/contract.ts';
import { operationsOf } from '../spec/contract.ts';
import type { Exchange, OperationCoverage } from './types.ts';
import { hasDotSegment } from './dot-segments.ts';

export interface OperationMatcher {
  /** The documented operation of this exchange, or undefined (other methods, unknown paths). */
  operationOf(exchange: Exchange): Operation | undefined;
  /** Per documented operation: each documented status and how many answers showed it, and the others seen. */
  statusCoverage(exchanges: readonly Exchange[]): OperationCoverage[];
}

export function operationMatcher(contract: ContractValidator, baseUrl: string): OperationMatcher {
  const routes = operationsOf(contract.doc).map((operation) => ({
    operation,
    pattern: new RegExp(
      `^${operation.path
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    ),
  }));
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  // Checks ask this of every exchange, several times over a run: each URL is parsed once.
  const known = new WeakMap<Exchange, Operation | null>();
  const match = (exchange: Exchange): Operation | null => {
    // A dot segment went on the wire as written (client.ts): no documented path has one.
    if (hasDotSegment(exchange.request.url)) return null;
    const method = exchange.request.method === 'HEAD' ? 'GET' : exchange.request.method;
    const path = new URL(exchange.request.url).pathname.slice(prefix.length);
    return routes.find((r) => r.operation.method === method && r.pattern.test(path))?.operation ?? null;
  };
  const operationOf = (exchange: Exchange): Operation | undefined => {
    let operation = known.get(exchange);
    if (operation === undefined) known.set(exchange, (operation = match(exchange)));
    return operation ?? undefined;
  };
  return {
    operationOf,
    statusCoverage(exchanges) {
      const seenBy = new Map<Operation, Map<string, number>>();
      for (const exchange of exchanges) {
        const operation = exchange.response && operationOf(exchange);
        if (!exchange.response || !operation) continue;
        const seen = seenBy.get(operation) ?? new Map<string, number>();
        seenBy.set(operation, seen);
        const status = String(exchange.response.status);
        seen.set(status, (seen.get(status) ?? 0) + 1);
      }
      return routes.map(({ operation }) => {
        const seen = seenBy.get(operation) ?? new Map<string, number>();
        const documented = operation.statuses.map((status) => ({ status, observed: seen.get(status) ?? 0 }));
        const undocumented = [...seen]
          .filter(([status]) => !operation.statuses.includes(status))
          .map(([status, observed]) => ({ status, observed }));
        return {
          operationId: operation.operationId,
          method: operation.method,
          path: operation.path,
          statuses: documented,
          undocumented,
        };
      });
    },
  };
}
