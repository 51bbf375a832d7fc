/**
 * What a recording-rule type is: everything the DVR, the interface and the CLI need to
 * know about it, in one object per type (series.rule.ts, keyword.rule.ts, ...). The
 * table in rule-types.ts lists them; the request schema, the planner's dispatch and
 * `antenna rule` are derived from that table, so a new type is one new module and its
 * entry there.
 */
import type { TObject } from '@sinclair/typebox';
import type { Airing } from '../../lineup/airing.js';

// The shared options' schemas are in model/ (the web app derives its types from them).
export { ChannelNumber, EpochSeconds, ruleOptions } from '../../../model/dvr/rule.schemas.js';

/** The shared options as a type (what every definition has besides its own fields). */
export interface RuleOptionFields {
  type: string;
  name?: string;
  channels?: string[];
  new_only?: boolean;
  padding_before?: number;
  padding_after?: number;
  keep?: number;
  priority?: number;
  paused?: boolean;
}

/** A rule as stored: its numeric id and its definition. */
export interface StoredRuleOf<D> {
  id: number;
  definition: D;
}

/** Where a type's planner hands what it found. */
export interface CandidateSink<D> {
  /** An airing the rule records; `dedupe`: an episode already recorded or planned is not recorded again. */
  airing(rule: StoredRuleOf<D>, airing: Airing, channels: readonly string[], dedupe: boolean): void;
  /** A stretch of one channel the rule records whatever is on (described by `airing`). */
  slot(rule: StoredRuleOf<D>, airing: Airing, channel: string, start: number, end: number): void;
}

/**
 * One plan's worth of work for all active rules of a type. The planner reads the guide
 * once and shows every airing to every type's `see`, then calls `finish`.
 */
export interface TypePlanner {
  see(airing: Airing): void;
  finish(): void;
}

/** What a plan knows besides the rules and the guide. */
export interface PlanWindow {
  /** Epoch seconds. */
  now: number;
  /** Weekly slots are planned up to here. */
  horizon: number;
  /** Ids of rules with a job that finished (however it went). */
  finishedRules: ReadonlySet<number>;
  /** Rule id → the span of a job of it recording now. */
  recordingRules: ReadonlyMap<number, { start: number; end: number }>;
}

/**
 * What the database must hand the planner for these rules: airings on `channels`, and
 * airings `matches` accepts. The planner checks every airing again; this only spares it
 * reading the rest of a 14-day guide.
 */
export interface GuideNeeds {
  channels: readonly string[];
  /** True when `matches` reads summaries (they are then fetched). */
  needsSummary: boolean;
  matches?(title: string, summary: string | null, seriesId: string | null): boolean;
  /**
   * `matches` said as series ids, titles (case ignored) and substrings of titles or
   * summaries (case ignored), so a plan for a few rules reads the guide through its
   * indexes. Only for ASCII titles and words, where SQLite's case folding is
   * JavaScript's; absent otherwise, and `matches` is used.
   */
  query?: MatchQuery;
}

export interface MatchQuery {
  seriesIds: readonly string[];
  titles: readonly string[];
  substrings: readonly string[];
}

// eslint-disable-next-line no-control-regex
export const isAscii = (text: string) => /^[\x00-\x7f]*$/.test(text);

/** The guide's airing on a channel at a start time, if it has one (what a rule may keep of it when it is made). */
export type GuideLookup = (channel: string, start: number) => Pick<Airing, 'programId' | 'title'> | undefined;

/** Parsing helpers `antenna rule add` hands a type's CLI builder (they throw the CLI's own error). */
export interface RuleCliParsers {
  time(text: string): number;
  integer(text: string | undefined, flag: string): number | undefined;
  fail(message: string): never;
}

/** The `antenna rule add <type> [value]` options a type may read. */
export interface RuleCliOptions {
  seriesId?: string;
  channel?: string;
  start?: string;
  duration?: string;
  weekly?: boolean;
}

/** How a field of a type's own is typed in: the app's pass form draws and reads it by this. */
export type RuleFieldInput = 'text' | 'channel' | 'time' | 'minutes' | 'flag';

/**
 * One of a type's own fields in the pass form; its name is the body's property (limits and "required" come from the
 * schema).
 */
export interface RuleFieldForm<D> {
  name: Exclude<keyof D & string, keyof RuleOptionFields>;
  input: RuleFieldInput;
  label: string;
  hint?: string;
}

/**
 * The type as people see it: the app's pass form and its list of passes are drawn from
 * this (GET /dvr/rule-types), never from a switch on the type's name.
 */
export interface RuleTypeForm<D> {
  /** What the form's choice of type calls it ("Series"). */
  label: string;
  /** One sentence under the choice. */
  help: string;
  /** Its own fields, in order (the options every type shares follow them). */
  fields: readonly RuleFieldForm<D>[];
  /** Of these fields, at least one must be given (the schema cannot say it): the message says so. */
  oneOf?: { fields: readonly Exclude<keyof D & string, keyof RuleOptionFields>[]; message: string };
  /**
   * How a rule reads in a list: the first template whose fields are all given, `{field}`
   * replaced by its value as shown (a time in local time, minutes; a flag by nothing).
   */
  summaries: readonly string[];
}

export interface RuleType<K extends string, D extends RuleOptionFields & { type: K }> {
  type: K;
  form: RuleTypeForm<D>;
  /**
   * Records what is on a channel at a time, not programmes found by their names: it sees
   * the placeholder hours of a channel no guide describes, where the others see nothing.
   */
  recordsByTime: boolean;
  /**
   * Its jobs are their time on the channel, whatever is on (a slot): their identity is the
   * rule and the time (slotProgramme), and a guide that changes never makes one vanish.
   */
  jobsAreTheirTime: boolean;
  /** The request body's schema (its `type` a literal K), as the OpenAPI document shows it. */
  schema: TObject;
  /** What the schema cannot say; throws BadRequestError naming the field. */
  check(definition: D, now: number): void;
  /** Channel numbers written 7-1 become 7.1, as channels are stored. */
  normalise(definition: D): D;
  /**
   * What the rule keeps from the guide when it is made or edited (after normalise; `previous`: the rule before an
   * edit); absent: nothing.
   */
  complete?(definition: D, guide: GuideLookup, previous?: D): D;
  /** Epoch seconds after which the rule can plan nothing more (it is then deleted a day later); undefined: never. */
  endsAt(definition: D): number | undefined;
  /** The name jobs of the rule carry when it gives none. */
  displayName(definition: D): string;
  /** What the guide must provide for these rules. */
  guideNeeds(rules: readonly StoredRuleOf<D>[]): GuideNeeds;
  /** Finds these rules' candidates in one plan. */
  planner(rules: readonly StoredRuleOf<D>[], sink: CandidateSink<D>, window: PlanWindow): TypePlanner;
  cli: {
    /** `antenna rule add` usage of this type, e.g. 'series <title> [--series-id ID]'. */
    usage: string;
    /** The request body's own fields from the command line; the server checks the rest. */
    body(value: string | undefined, options: RuleCliOptions, parse: RuleCliParsers): Record<string, unknown>;
    /** One line about a rule as `antenna rule list` shows it (the shared options are added after). */
    describe(definition: D): string;
  };
}

/** Channel numbers as the sources store them (7-1 → 7.1). */
export const storedChannelNumber = (text: string) => text.replace('-', '.');

/** The shared options, normalised (the channel list). */
export function normaliseOptions<D extends RuleOptionFields>(definition: D): D {
  return definition.channels
    ? { ...definition, channels: definition.channels.map(storedChannelNumber) }
    : { ...definition };
}
