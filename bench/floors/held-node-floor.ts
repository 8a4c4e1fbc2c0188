/**
 * The Node floor holding the data set: with `--hold-walks N` it first generates the reference
 * server's data set of N walks and holds it, untouched, while it serves the same bare answers as
 * the Node floor, from a process whose heap is as large as the reference server's. The benchmark
 * reports it beside the bare floor, so that what a large heap costs every request is told apart
 * from what the reference server does per request.
 */
import { UsageError } from '../../command-line/flags.ts';
import { generateDataset, MAX_WALKS } from '../../fixtures/index.ts';
import { serveBareAnswers } from './bare-answers.ts';
import { floorArgs } from './served-bytes.ts';

const args = floorArgs(process.argv.slice(2));
if (args.holdWalks > MAX_WALKS) throw new UsageError(`--hold-walks must be at most ${MAX_WALKS}`);
/** Exported, so it stays reachable for as long as the process runs. */
export const held = args.holdWalks > 0 ? generateDataset({ walks: args.holdWalks }) : undefined;
serveBareAnswers(args);
