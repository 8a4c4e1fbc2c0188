/**
 * Names for the shapes of `spec/openapi.yaml`. Every type here is an alias of the types that
 * openapi-typescript generates from the spec (`npm run generate:types`); none is written by hand.
 */
import type { components } from './generated/openapi.d.ts';

type Schemas = components['schemas'];

export type StopStatus = Schemas['StopStatus'];
export type StatusCounts = Schemas['StatusCounts'];
export type WalkSummary = Schemas['WalkSummary'];
export type WalkDetail = Schemas['WalkDetail'];
export type Stop = Schemas['Stop'];
export type WalkListEnvelope = Schemas['WalkListEnvelope'];
export type WalkDetailEnvelope = Schemas['WalkDetailEnvelope'];
