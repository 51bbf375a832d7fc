/** Program rules: one airing from the guide, named by its channel and start time. */
import { ProgramRuleSchema, type ProgramRule } from '../../model/rule.schemas.js';
import { BadRequestError } from '../../common/errors.js';
import { pushTo } from '../../common/multi-map.js';
import { normaliseOptions, type RuleType, type StoredRuleOf, storedChannelNumber } from './rule-type.js';

export { ProgramRuleSchema };
export type { ProgramRule };

export const programRule: RuleType<'program', ProgramRule> = {
  type: 'program',
  schema: ProgramRuleSchema,
  check(definition, now) {
    if (definition.start_time + 86400 <= now) {
      throw new BadRequestError('start_time', 'That airing is over: give the start_time of an airing in the guide that has not ended.');
    }
  },
  normalise: (d) => ({ ...normaliseOptions(d), channel: storedChannelNumber(d.channel) }),
  // The airing's end is not in the rule; a day after its start covers the longest.
  endsAt: (d) => d.start_time + 86400,
  displayName: (d) => d.name ?? `channel ${d.channel}`,
  guideNeeds: (rules) => ({ channels: rules.map((rule) => rule.definition.channel), needsSummary: false }),
  planner(rules, sink) {
    const byChannelAndStart = new Map<string, StoredRuleOf<ProgramRule>[]>();
    for (const rule of rules) pushTo(byChannelAndStart, `${rule.definition.channel}@${rule.definition.start_time}`, rule);
    return {
      see(airing) {
        if (byChannelAndStart.size === 0) return;
        for (const channel of airing.channels) {
          for (const rule of byChannelAndStart.get(`${channel}@${airing.start}`) ?? []) sink.airing(rule, airing, [channel], false);
        }
      },
      finish: () => undefined,
    };
  },
  cli: {
    usage: 'program <channel> --start TIME',
    body(value, options, parse) {
      if (options.start === undefined) return parse.fail('A program rule needs --start.');
      return { channel: value ?? options.channel, start_time: parse.time(options.start) };
    },
    describe: (d) => `program on channel ${d.channel} at ${new Date(d.start_time * 1000).toLocaleString()}`,
  },
};
