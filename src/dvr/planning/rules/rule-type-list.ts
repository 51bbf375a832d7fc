/**
 * The recording-rule types this Antenna knows, in the order the app offers them. A new
 * type is its module (rule-type.ts says what one provides) and its line here: the
 * schemas, the planner, the management interface, `antenna rule` and the app's pass form
 * are derived from this list (rule-types.ts).
 */
import { keywordRule } from './keyword.rule.js';
import { programRule } from './program.rule.js';
import { seriesRule } from './series.rule.js';
import { slotRule } from './slot.rule.js';

export const RULE_TYPES = [seriesRule, keywordRule, slotRule, programRule] as const;
