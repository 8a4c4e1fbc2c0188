/**
 * The old path of the registry, kept only for `conformance/test/coverage-table.ts` (another
 * owner's file) until it imports `./registry.ts`; then delete this file.
 */
export { CHECKS } from './registry.ts';
