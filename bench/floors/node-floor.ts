/**
 * The Node floor: bare `node:http` serving the reference server's bytes (`bare-answers.ts`). It
 * loads nothing of the house but its flags, so that under Valgrind, where every module loaded costs
 * tens of times more, its start-up is node's own.
 */
import { serveBareAnswers } from './bare-answers.ts';
import { floorArgs } from './served-bytes.ts';

serveBareAnswers(floorArgs(process.argv.slice(2)));
