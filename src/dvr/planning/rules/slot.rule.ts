/** Time-slot rules: a channel and a time, once or weekly, whatever the guide says is on. */
import { SlotRuleSchema, type SlotRule } from '../../../model/dvr/rule.schemas.js';
import { BadRequestError } from '../../../common/errors.js';
import { pushTo } from '../../../common/multi-map.js';
import type { Airing } from '../../lineup/airing.js';
import { normaliseOptions, type RuleType, storedChannelNumber } from './rule-type.js';

export { SlotRuleSchema };
export type { SlotRule };

/**
 * Start times of a slot that end after `now` and start before `horizon`; weekly ones keep their local wall-clock time
 * across DST.
 */
export function slotStarts(
  rule: Pick<SlotRule, 'start_time' | 'duration' | 'weekly'>,
  now: number,
  horizon: number,
): number[] {
  if (!rule.weekly) return rule.start_time + rule.duration > now ? [rule.start_time] : [];
  const starts: number[] = [];
  const first = new Date(rule.start_time * 1000);
  // Skip whole weeks already past, then walk forward by local calendar days.
  const weeksPast = Math.max(0, Math.floor((now - rule.start_time - rule.duration) / (7 * 86400)));
  for (let week = weeksPast; ; week++) {
    const at = new Date(first);
    at.setDate(first.getDate() + week * 7);
    const start = Math.floor(at.getTime() / 1000);
    if (start >= horizon) break;
    if (start + rule.duration > now) starts.push(start);
  }
  return starts;
}

/** The airing that overlaps the slot most, stretched to the slot (the item lasts as long as the slot). */
function describeSlot(rule: SlotRule, start: number, end: number, airings: readonly Airing[]): Airing {
  let best: Airing | undefined;
  let bestOverlap = 0;
  for (const airing of airings) {
    const overlap = Math.min(end, airing.stop) - Math.max(start, airing.start);
    if (overlap > bestOverlap) [best, bestOverlap] = [airing, overlap];
  }
  const base: Airing = best ?? { channels: [rule.channel], start, stop: end, title: slotRule.displayName(rule) };
  return { ...base, channels: [rule.channel], start, stop: end };
}

/** A one-time slot of a channel from `start` for `duration` seconds: what "record now" makes (the live wing). */
export function oneTimeSlot(fields: {
  channel: string;
  start: number;
  duration: number;
  name: string;
  priority: number;
}): SlotRule {
  return {
    type: 'slot',
    channel: fields.channel,
    start_time: fields.start,
    duration: fields.duration,
    name: fields.name,
    priority: fields.priority,
  };
}

export const slotRule: RuleType<'slot', SlotRule> = {
  type: 'slot',
  form: {
    label: 'Time slot',
    help: 'A channel at a time, once or every week, whatever is on.',
    fields: [
      { name: 'channel', input: 'channel', label: 'Channel' },
      { name: 'start_time', input: 'time', label: 'Starts' },
      { name: 'duration', input: 'minutes', label: 'Length (minutes)' },
      { name: 'weekly', input: 'flag', label: 'Every week at this time' },
    ],
    summaries: [
      'Channel {channel}, {start_time} for {duration} min, weekly{weekly}',
      'Channel {channel}, {start_time} for {duration} min',
    ],
  },
  recordsByTime: true,
  jobsAreTheirTime: true,
  schema: SlotRuleSchema,
  check(definition, now) {
    // A one-time rule for a time already over could record nothing (and would be cleaned away at once).
    if (!definition.weekly && definition.start_time + definition.duration <= now) {
      throw new BadRequestError(
        'start_time',
        'That time slot is over: give a start_time in the future, or weekly: true.',
      );
    }
  },
  normalise: (d) => ({ ...normaliseOptions(d), channel: storedChannelNumber(d.channel) }),
  endsAt: (d) => (d.weekly ? undefined : d.start_time + d.duration),
  displayName: (d) => d.name ?? `channel ${d.channel}`,
  guideNeeds: (rules) => ({ channels: rules.map((rule) => rule.definition.channel), needsSummary: false }),
  planner(rules, sink, window) {
    const channels = new Set(rules.map((rule) => rule.definition.channel));
    const airingsOn = new Map<string, Airing[]>();
    return {
      // The guide only describes a slot: its airings on the slots' channels are kept for that.
      see(airing) {
        for (const channel of airing.channels) if (channels.has(channel)) pushTo(airingsOn, channel, airing);
      },
      finish() {
        for (const rule of rules) {
          const d = rule.definition;
          for (const start of slotStarts(d, window.now, window.horizon)) {
            const end = start + d.duration;
            sink.slot(rule, describeSlot(d, start, end, airingsOn.get(d.channel) ?? []), d.channel, start, end);
          }
        }
      },
    };
  },
  cli: {
    usage: 'slot <channel> --start TIME --duration MINUTES [--weekly]',
    body(value, options, parse) {
      if (options.start === undefined) return parse.fail('A slot rule needs --start.');
      const start = parse.time(options.start);
      const minutes = parse.integer(options.duration, '--duration');
      if (minutes === undefined) return parse.fail('A slot rule needs --duration (minutes).');
      return {
        channel: value ?? options.channel,
        start_time: start,
        duration: minutes * 60,
        ...(options.weekly ? { weekly: true } : {}),
      };
    },
    describe: (d) =>
      `slot on channel ${d.channel} at ${new Date(d.start_time * 1000).toLocaleString()}${d.weekly ? ', weekly' : ''}`,
  },
};
