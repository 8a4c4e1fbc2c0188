/**
 * The walks module: the rules that hold for walks alone (summaries, links, stops, consistency of a
 * summary with its detail), attached to the walks operations of the spec under test.
 */
import type { Rule } from '../../core/rule.ts';
import { consistencyRules } from './consistency.ts';
import { stopRules } from './stops.ts';
import { summaryRules } from './summaries.ts';

export const walksRules: Rule[] = [...summaryRules, ...stopRules, ...consistencyRules];
