/** Program rules: one airing from the guide, named by its channel and start time. */
import { Type, type Static } from '@sinclair/typebox';
import { BadRequestError } from '../../common/errors.js';
import { pushTo } from '../../common/multi-map.js';
import { ChannelNumber, EpochSeconds, normaliseOptions, type RuleType, ruleOptions, type StoredRuleOf, storedChannelNumber } from './rule-type.js';

export const ProgramRuleSchema = Type.Object(
  {
    type: Type.Literal('program'),
    channel: ChannelNumber,
    start_time: { ...EpochSeconds, description: 'the start of the airing in the guide' },
    ...ruleOptions,
  },
  { additionalProperties: false, title: 'Program rule', description: 'One airing from the guide: its channel and start time.' },
);

export type ProgramRule = Static<typeof ProgramRuleSchema>;

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
