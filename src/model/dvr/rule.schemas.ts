/**
 * The bodies of recording rules, one TypeBox schema per type, and the options every
 * type shares. They live here, apart from the types' logic in dvr/planning/rules/, so the web
 * app can derive its types from them without reaching into the DVR: each
 * `dvr/planning/rules/<type>.rule.ts` takes its schema from here, and rule-types.ts builds the
 * request and stored-rule unions from the table of types as before.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';

export const ChannelNumber = Type.String({
  pattern: '^\\d{1,5}([.-]\\d{1,5})?$',
  description: 'a channel number such as "12" or "12.1"',
});
export const EpochSeconds = Type.Integer({ minimum: 0, maximum: 253402300799, description: 'epoch seconds' });

/** Options every rule type shares (spread into each type's schema). */
export const ruleOptions = {
  name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'shown as the job name; defaults to what the rule matches',
    }),
  ),
  channels: Type.Optional(
    Type.Array(ChannelNumber, { maxItems: 500, description: 'record only from these channels (default: any channel)' }),
  ),
  new_only: Type.Optional(Type.Boolean({ description: 'record only airings the guide marks as new' })),
  padding_before: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, description: 'seconds to start early' })),
  padding_after: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 3 * 3600, description: 'seconds to keep recording after the end' }),
  ),
  keep: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10_000,
      description: 'keep the newest N recordings of this rule (0: keep all); locked ones are never pruned',
    }),
  ),
  priority: Type.Optional(
    Type.Integer({ minimum: -1000, maximum: 1000, description: 'higher wins when tuners run out (default 0)' }),
  ),
  paused: Type.Optional(Type.Boolean({ description: 'a paused rule schedules nothing' })),
};

export const SeriesRuleSchema = Type.Object(
  {
    type: Type.Literal('series'),
    series_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the guide's series id" })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'the exact title (case ignored)' })),
    ...ruleOptions,
  },
  {
    additionalProperties: false,
    title: 'Series rule',
    description: 'Every airing of a series, by series id or exact title (give at least one).',
  },
);

export const KeywordRuleSchema = Type.Object(
  {
    type: Type.Literal('keyword'),
    keyword: Type.String({ minLength: 2, maxLength: 200, description: 'found in the title or summary (case ignored)' }),
    ...ruleOptions,
  },
  { additionalProperties: false, title: 'Keyword rule' },
);

export const SlotRuleSchema = Type.Object(
  {
    type: Type.Literal('slot'),
    channel: ChannelNumber,
    start_time: EpochSeconds,
    duration: Type.Integer({ minimum: 60, maximum: 24 * 3600, description: 'seconds' }),
    weekly: Type.Optional(Type.Boolean({ description: 'repeat every week at the same local time (default: once)' })),
    ...ruleOptions,
  },
  {
    additionalProperties: false,
    title: 'Time slot rule',
    description: 'A channel and a time, once or weekly, whatever the guide says.',
  },
);

export const ProgramRuleSchema = Type.Object(
  {
    type: Type.Literal('program'),
    channel: ChannelNumber,
    start_time: { ...EpochSeconds, description: 'the start of the airing in the guide' },
    program_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "the guide's programme id of the airing; filled in from the guide when the rule is made",
      }),
    ),
    title: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'the airing’s title; filled in from the guide when the rule is made',
      }),
    ),
    ...ruleOptions,
  },
  {
    additionalProperties: false,
    title: 'Program rule',
    description:
      'One airing from the guide: its channel and start time. When the guide moves it, the rule follows it on its channel: by programme id within 12 hours, else by title within an hour.',
  },
);

/** A rule type as GET /dvr/rule-types lists it: what the app's pass form is drawn from. */
export const RuleTypeInfoSchema = Type.Object(
  {
    type: Type.String({ description: 'the body\'s "type"' }),
    label: Type.String(),
    help: Type.String(),
    records_by_time: Type.Boolean({
      description: 'records a channel at a time, whatever is on (the "new only" option means nothing to it)',
    }),
    fields: Type.Array(
      Type.Object({
        name: Type.String({ description: 'the body property' }),
        input: Type.Union(
          [
            Type.Literal('text'),
            Type.Literal('channel'),
            Type.Literal('time'),
            Type.Literal('minutes'),
            Type.Literal('flag'),
          ],
          {
            description: 'text; a channel number; a time (epoch seconds); a length in seconds typed in minutes; a flag',
          },
        ),
        label: Type.String(),
        hint: Type.Optional(Type.String()),
        required: Type.Boolean(),
        minimum: Type.Optional(Type.Number({ description: "the schema's, in the body's unit (seconds for minutes)" })),
        maximum: Type.Optional(Type.Number()),
        min_length: Type.Optional(Type.Integer()),
        max_length: Type.Optional(Type.Integer()),
      }),
    ),
    one_of: Type.Optional(
      Type.Object(
        { fields: Type.Array(Type.String()), message: Type.String() },
        { description: 'at least one of these fields must be given' },
      ),
    ),
    summaries: Type.Array(Type.String(), {
      description: 'how a rule reads in a list: the first whose {fields} are all given',
    }),
  },
  { title: 'Rule type' },
);

const RuleId = Type.String({ pattern: '^\\d+$', description: 'the rule id' });

/** A stored rule of one type as the interface returns it: its id and its definition. */
export function storedRuleSchema<T extends TObject>(schema: T) {
  return Type.Object(
    { id: RuleId, ...(schema.properties as T['properties']) },
    { additionalProperties: false, title: `${schema.title} (stored)` },
  );
}

export type SeriesRule = Static<typeof SeriesRuleSchema>;
export type KeywordRule = Static<typeof KeywordRuleSchema>;
export type SlotRule = Static<typeof SlotRuleSchema>;
export type ProgramRule = Static<typeof ProgramRuleSchema>;
