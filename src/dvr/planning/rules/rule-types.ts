/**
 * What is derived from the table of recording-rule types (rule-type-list.ts): the request
 * and stored-rule schemas, each type by name, GET /dvr/rule-types. A new type is a module
 * beside the others (rule-type.ts says what it provides) and one line in that list; the
 * planner, the management interface, `antenna rule` and the app's pass form follow.
 */
import { type Static, Type } from '@sinclair/typebox';
import { type RuleTypeInfoSchema, storedRuleSchema } from '../../../model/dvr/rule.schemas.js';
import { RULE_TYPES } from './rule-type-list.js';
import type { GuideLookup, RuleType, StoredRuleOf } from './rule-type.js';

export { RULE_TYPES };

type DefinitionOf<T> = T extends RuleType<string, infer D> ? D : never;
/** Any rule's definition, as the management interface accepts it and the database keeps it. */
export type RuleDefinition = DefinitionOf<(typeof RULE_TYPES)[number]>;
export type RuleTypeName = RuleDefinition['type'];
export type StoredRule = StoredRuleOf<RuleDefinition>;
/** The definition of one type. */
export type RuleOfType<K extends RuleTypeName> = Extract<RuleDefinition, { type: K }>;

/** Each type by name, from the list (a Map: no name such as "constructor" is found on a prototype). */
const BY_NAME: ReadonlyMap<string, (typeof RULE_TYPES)[number]> = new Map(
  RULE_TYPES.map((ruleType) => [ruleType.type, ruleType]),
);

export function isRuleTypeName(name: string): name is RuleTypeName {
  return BY_NAME.has(name);
}

/** The module of a definition's type, typed for that definition. */
export function ruleTypeOf<D extends RuleDefinition>(definition: D): RuleType<D['type'], D> {
  // TypeScript cannot follow that BY_NAME.get(d.type) is the module of d's own type; the Map is built from each
  // module's own `type`.
  return BY_NAME.get(definition.type) as unknown as RuleType<D['type'], D>;
}

export function ruleTypeNamed<K extends RuleTypeName>(name: K): RuleType<K, RuleOfType<K>> {
  return BY_NAME.get(name) as unknown as RuleType<K, RuleOfType<K>>;
}

export type RuleTypeInfo = Static<typeof RuleTypeInfoSchema>;

interface FieldSchema {
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** Each type as the app's pass form draws it (GET /dvr/rule-types): its form, with the limits its schema sets. */
export function ruleTypeInfos(): RuleTypeInfo[] {
  return RULE_TYPES.map((ruleType) => {
    const { form, schema } = ruleType as unknown as RuleType<string, { type: string }>;
    const required = new Set(schema.required ?? []);
    const properties = schema.properties as Record<string, FieldSchema>;
    return {
      type: ruleType.type,
      label: form.label,
      help: form.help,
      records_by_time: ruleType.recordsByTime,
      fields: form.fields.map(({ name, input, label, hint }) => {
        const limits = properties[name] ?? {};
        return {
          name,
          input,
          label,
          ...(hint ? { hint } : {}),
          required: required.has(name),
          ...(limits.minimum !== undefined ? { minimum: limits.minimum } : {}),
          ...(limits.maximum !== undefined ? { maximum: limits.maximum } : {}),
          ...(limits.minLength !== undefined ? { min_length: limits.minLength } : {}),
          ...(limits.maxLength !== undefined ? { max_length: limits.maxLength } : {}),
        };
      }),
      ...(form.oneOf ? { one_of: { fields: [...form.oneOf.fields], message: form.oneOf.message } } : {}),
      summaries: [...form.summaries],
    };
  });
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
export function checkRule(
  definition: RuleDefinition,
  now: number,
  guide?: GuideLookup,
  previous?: RuleDefinition,
): RuleDefinition {
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
  return typeof definition === 'object' &&
    definition !== null &&
    typeof definition.type === 'string' &&
    isRuleTypeName(definition.type)
    ? { id: record.id, definition: definition as RuleDefinition }
    : undefined;
}
