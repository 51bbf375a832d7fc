/**
 * The table of recording-rule types. A new type is a module beside these (see
 * rule-type.ts for what it provides) and its entry in RULE_TYPES and BY_NAME (the
 * compiler insists on both); the request schema,
 * the stored-rule schema, the planner and `antenna rule` all read this table.
 */
import { Type } from '@sinclair/typebox';
import { storedRuleSchema } from '../../../model/rule.schemas.js';
import { keywordRule } from './keyword.rule.js';
import { programRule } from './program.rule.js';
import type { GuideLookup, RuleType, StoredRuleOf } from './rule-type.js';
import { seriesRule } from './series.rule.js';
import { slotRule } from './slot.rule.js';

export const RULE_TYPES = [seriesRule, keywordRule, slotRule, programRule] as const;

type DefinitionOf<T> = T extends RuleType<string, infer D> ? D : never;
/** Any rule's definition, as the management interface accepts it and the database keeps it. */
export type RuleDefinition = DefinitionOf<(typeof RULE_TYPES)[number]>;
export type RuleTypeName = RuleDefinition['type'];
export type StoredRule = StoredRuleOf<RuleDefinition>;
/** The definition of one type. */
export type RuleOfType<K extends RuleTypeName> = Extract<RuleDefinition, { type: K }>;

/**
 * Each type by name. Written as a mapped type, so a name in RuleDefinition without its
 * module here (or a module under the wrong name) does not compile.
 */
const BY_NAME: { readonly [K in RuleTypeName]: RuleType<K, RuleOfType<K>> } = {
  series: seriesRule,
  keyword: keywordRule,
  slot: slotRule,
  program: programRule,
};

export function isRuleTypeName(name: string): name is RuleTypeName {
  return Object.hasOwn(BY_NAME, name);
}

/** The module of a definition's type, typed for that definition. */
export function ruleTypeOf<D extends RuleDefinition>(definition: D): RuleType<D['type'], D> {
  // TypeScript cannot follow that BY_NAME[d.type] is the module of d's own type; BY_NAME's mapped type guarantees it.
  return BY_NAME[definition.type] as unknown as RuleType<D['type'], D>;
}

export function ruleTypeNamed<K extends RuleTypeName>(name: K): RuleType<K, RuleOfType<K>> {
  return BY_NAME[name];
}

/**
 * A union tagged by `type`: the validator then checks the body against that type's
 * schema only, so an error names the field that is wrong rather than the union.
 */
export const RuleDefinitionSchema = Type.Unsafe<RuleDefinition>({
  type: 'object',
  title: 'Rule definition',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: RULE_TYPES.map((ruleType) => ruleType.schema),
});

/** A stored rule as the interface returns it: its id and its definition. */
export const RuleSchema = Type.Union(
  RULE_TYPES.map(({ schema }) => storedRuleSchema(schema)),
  { title: 'Rule' },
);

/**
 * What a schema cannot say about a rule (BadRequestError), and the definition as it is
 * stored: normalised, with what its type keeps from the guide when `guide` is given
 * (`previous`: the stored rule an edit replaces).
 */
export function checkRule(definition: RuleDefinition, now: number, guide?: GuideLookup, previous?: RuleDefinition): RuleDefinition {
  const ruleType = ruleTypeOf(definition);
  ruleType.check(definition, now);
  const normalised = ruleType.normalise(definition);
  const before = previous?.type === definition.type ? previous : undefined;
  return guide && ruleType.complete ? ruleType.complete(normalised, guide, before) : normalised;
}

/**
 * A definition read back from the database, if its type is one this version knows: a
 * row written by a newer Antenna (a type it added) is left out of the plan rather than
 * breaking it. Its fields are trusted: only this program writes them, after checking.
 */
export function asStoredRule(record: { id: number; definition: unknown }): StoredRule | undefined {
  const definition = record.definition as { type?: unknown } | null;
  return typeof definition === 'object' && definition !== null && typeof definition.type === 'string' && isRuleTypeName(definition.type)
    ? { id: record.id, definition: definition as RuleDefinition }
    : undefined;
}
