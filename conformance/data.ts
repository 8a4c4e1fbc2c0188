/**
 * The old path of the shared fetches, kept only for `conformance/test/sweep-variants.ts` (another
 * owner's file) until it imports `./shared-fetches.ts`; then delete this file.
 */
export { seededRandom } from './shared-fetches.ts';
