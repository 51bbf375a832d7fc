/**
 * Program rules: one airing from the guide, named by its channel and start time. When
 * the rule is made it keeps the airing's programme id and title (complete), so that
 * when a guide refresh moves the airing the rule follows it on its channel: the airing
 * with that programme id nearest the time it was made for, within PROGRAMME_ID_REACH;
 * in a guide without ids (or one that lost them), the airing with that title nearest
 * the time, within TITLE_REACH. An airing at the time with another programme (the slot
 * given to something else) is not recorded, and once its job has started no rerun is
 * taken for it. A rule that kept nothing (the guide did
 * not have the airing when it was made) records what is at its channel and time.
 */
import { ProgramRuleSchema, type ProgramRule } from '../../../model/dvr/rule.schemas.js';
import { BadRequestError } from '../../../common/errors.js';
import { pushTo } from '../../../common/multi-map.js';
import type { Airing } from '../../lineup/airing.js';
import { normaliseOptions, type RuleType, type StoredRuleOf, storedChannelNumber } from './rule-type.js';

export { ProgramRuleSchema };
export type { ProgramRule };

/** How far a programme id is followed: a guide shuffling an evening, not next week's rerun. */
export const PROGRAMME_ID_REACH = 12 * 3600;
/** How far a title is followed: titles repeat (hourly news), so only a nearby move. */
export const TITLE_REACH = 3600;

type Rule = StoredRuleOf<ProgramRule>;

const sameTitle = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** How far from the rule's time the airing is, if it is the rule's programme within reach; undefined if not. */
export function followDistance(
  rule: ProgramRule,
  airing: Pick<Airing, 'start' | 'programId' | 'title'>,
): number | undefined {
  const distance = Math.abs(airing.start - rule.start_time);
  if (rule.program_id !== undefined && airing.programId !== undefined) {
    return airing.programId === rule.program_id && distance <= PROGRAMME_ID_REACH ? distance : undefined;
  }
  if (rule.title !== undefined)
    return sameTitle(airing.title, rule.title) && distance <= TITLE_REACH ? distance : undefined;
  // Kept an id only, and the guide has none now: only the exact time.
  return distance === 0 ? 0 : undefined;
}

const identified = (d: ProgramRule) => d.program_id !== undefined || d.title !== undefined;

export const programRule: RuleType<'program', ProgramRule> = {
  type: 'program',
  form: {
    label: 'One airing',
    help: 'One airing from the guide: its channel and start time.',
    fields: [
      { name: 'channel', input: 'channel', label: 'Channel' },
      { name: 'start_time', input: 'time', label: 'Starts', hint: 'The airing’s start, as the guide gives it.' },
    ],
    summaries: ['“{title}”, channel {channel} at {start_time}', 'Channel {channel} at {start_time}'],
  },
  recordsByTime: true,
  jobsAreTheirTime: false,
  schema: ProgramRuleSchema,
  check(definition, now) {
    if (definition.start_time + 86400 <= now) {
      throw new BadRequestError(
        'start_time',
        'That airing is over: give the start_time of an airing in the guide that has not ended.',
      );
    }
  },
  normalise: (d) => ({ ...normaliseOptions(d), channel: storedChannelNumber(d.channel) }),
  complete(d, guide, previous) {
    const moved = previous !== undefined && (previous.channel !== d.channel || previous.start_time !== d.start_time);
    // An edit to another airing that sends back what was kept of the old one (a client echoing the stored rule) learns
    // the new one.
    if (moved && identified(d) && d.program_id === previous.program_id && d.title === previous.title) {
      const { program_id: _id, title: _title, ...rest } = d;
      return programRule.complete!(rest as ProgramRule, guide);
    }
    if (identified(d)) return d;
    // An edit that keeps the airing (a new padding, say) keeps what was learnt of it: the guide may have moved it
    // since.
    if (previous && identified(previous) && previous.channel === d.channel && previous.start_time === d.start_time) {
      return {
        ...d,
        ...(previous.title !== undefined ? { title: previous.title } : {}),
        ...(previous.program_id !== undefined ? { program_id: previous.program_id } : {}),
      };
    }
    const airing = guide(d.channel, d.start_time);
    if (!airing) return d;
    return { ...d, title: airing.title, ...(airing.programId ? { program_id: airing.programId } : {}) };
  },
  // The airing's end is not in the rule; a day after its start (and as far as it may be followed) covers the longest.
  endsAt: (d) => d.start_time + (identified(d) ? PROGRAMME_ID_REACH : 0) + 86400,
  displayName: (d) => d.name ?? d.title ?? `channel ${d.channel}`,
  guideNeeds: (rules) => ({ channels: rules.map((rule) => rule.definition.channel), needsSummary: false }),
  planner(rules, sink, window) {
    const exact = new Map<string, Rule[]>();
    const following = new Map<string, Rule[]>();
    for (const rule of rules) {
      // Its job finished: a rerun within reach is not taken for it.
      if (window.finishedRules.has(rule.id)) continue;
      if (identified(rule.definition)) pushTo(following, rule.definition.channel, rule);
      else pushTo(exact, `${rule.definition.channel}@${rule.definition.start_time}`, rule);
    }
    const best = new Map<Rule, { airing: Airing; distance: number }>();
    return {
      see(airing) {
        for (const channel of airing.channels) {
          for (const rule of exact.get(`${channel}@${airing.start}`) ?? []) sink.airing(rule, airing, [channel], false);
          for (const rule of following.get(channel) ?? []) {
            // Recording now: only the airing it records (the guide may have extended it), never a rerun.
            const recording = window.recordingRules.get(rule.id);
            if (recording && !(airing.start < recording.end && recording.start < airing.stop)) continue;
            const distance = followDistance(rule.definition, airing);
            const current = best.get(rule);
            // Nearest wins; at equal distance the earlier airing, so the choice does not depend on the guide's order.
            if (
              distance !== undefined &&
              (!current ||
                distance < current.distance ||
                (distance === current.distance && airing.start < current.airing.start))
            ) {
              best.set(rule, { airing, distance });
            }
          }
        }
      },
      finish() {
        for (const [rule, { airing }] of best) sink.airing(rule, airing, [rule.definition.channel], false);
      },
    };
  },
  cli: {
    usage: 'program <channel> --start TIME',
    body(value, options, parse) {
      if (options.start === undefined) return parse.fail('A program rule needs --start.');
      return { channel: value ?? options.channel, start_time: parse.time(options.start) };
    },
    describe: (d) =>
      `program${d.title ? ` “${d.title}”` : ''} on channel ${d.channel} at ${new Date(d.start_time * 1000).toLocaleString()}`,
  },
};
