/**
 * Recording rules as the management interface accepts and returns them. One schema
 * per rule type, so the OpenAPI document shows each body exactly; the stored
 * definition is the accepted body.
 */
import { Type, type Static } from '@sinclair/typebox';

const ChannelNumber = Type.String({ pattern: '^\\d{1,5}([.-]\\d{1,5})?$', description: 'a channel number such as "12" or "12.1"' });
const EpochSeconds = Type.Integer({ minimum: 0, maximum: 253402300799, description: 'epoch seconds' });

/** Options every rule type shares. */
const ruleOptions = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'shown as the job name; defaults to what the rule matches' })),
  channels: Type.Optional(
    Type.Array(ChannelNumber, { maxItems: 500, description: 'record only from these channels (default: any channel)' }),
  ),
  new_only: Type.Optional(Type.Boolean({ description: 'record only airings the guide marks as new' })),
  padding_before: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, description: 'seconds to start early' })),
  padding_after: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 * 3600, description: 'seconds to keep recording after the end' })),
  keep: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 10_000, description: 'keep the newest N recordings of this rule (0: keep all); locked ones are never pruned' }),
  ),
  priority: Type.Optional(Type.Integer({ minimum: -1000, maximum: 1000, description: 'higher wins when tuners run out (default 0)' })),
  paused: Type.Optional(Type.Boolean({ description: 'a paused rule schedules nothing' })),
};

export const SeriesRuleSchema = Type.Object(
  {
    type: Type.Literal('series'),
    series_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the guide's series id" })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'the exact title (case ignored)' })),
    ...ruleOptions,
  },
  { additionalProperties: false, title: 'Series rule', description: 'Every airing of a series, by series id or exact title (give at least one).' },
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
  { additionalProperties: false, title: 'Time slot rule', description: 'A channel and a time, once or weekly, whatever the guide says.' },
);

export const ProgramRuleSchema = Type.Object(
  {
    type: Type.Literal('program'),
    channel: ChannelNumber,
    start_time: { ...EpochSeconds, description: 'the start of the airing in the guide' },
    ...ruleOptions,
  },
  { additionalProperties: false, title: 'Program rule', description: 'One airing from the guide: its channel and start time.' },
);

/**
 * A union tagged by `type`: the validator then checks the body against that type's
 * schema only, so an error names the field that is wrong rather than the union.
 */
export const RuleDefinitionSchema = Type.Unsafe<Static<typeof SeriesRuleSchema> | Static<typeof KeywordRuleSchema> | Static<typeof SlotRuleSchema> | Static<typeof ProgramRuleSchema>>({
  type: 'object',
  title: 'Rule definition',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [SeriesRuleSchema, KeywordRuleSchema, SlotRuleSchema, ProgramRuleSchema],
});

const RuleId = Type.String({ pattern: '^\\d+$', description: 'the rule id' });

/** A stored rule as the interface returns it: its id and its definition. */
export const RuleSchema = Type.Union(
  [SeriesRuleSchema, KeywordRuleSchema, SlotRuleSchema, ProgramRuleSchema].map((schema) =>
    Type.Object({ id: RuleId, ...schema.properties }, { additionalProperties: false, title: `${schema.title} (stored)` }),
  ),
  { title: 'Rule' },
);

export type SeriesRule = Static<typeof SeriesRuleSchema>;
export type KeywordRule = Static<typeof KeywordRuleSchema>;
export type SlotRule = Static<typeof SlotRuleSchema>;
export type ProgramRule = Static<typeof ProgramRuleSchema>;
export type RuleDefinition = Static<typeof RuleDefinitionSchema>;

/** A stored rule: its numeric id and its definition. */
export interface StoredRule {
  id: number;
  definition: RuleDefinition;
}

/** The name jobs of this rule carry when the rule gives none. */
export function ruleDisplayName(rule: RuleDefinition): string {
  if (rule.name) return rule.name;
  switch (rule.type) {
    case 'series':
      return rule.title ?? rule.series_id ?? 'series';
    case 'keyword':
      return rule.keyword;
    case 'slot':
    case 'program':
      return `channel ${rule.channel}`;
  }
}
