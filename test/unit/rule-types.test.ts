/**
 * The rule-type table (src/dvr/planning/rules/rule-types.ts): the request schema, the checks,
 * the expiry and the CLI all come from each type's module, so every type in the table
 * is present in each of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/common/errors.js';
import {
  asStoredRule,
  checkRule,
  isRuleTypeName,
  RULE_TYPES,
  type RuleDefinition,
  RuleDefinitionSchema,
  RuleSchema,
  ruleTypeOf,
} from '../../src/dvr/planning/rules/rule-types.js';

const NOW = 1_900_000_000;

describe('the rule-type table', () => {
  it('puts every type in the request schema and the stored-rule schema, under its own name', () => {
    const names = RULE_TYPES.map((t) => t.type);
    expect(names).toEqual(['series', 'keyword', 'slot', 'program']);
    const oneOf = (RuleDefinitionSchema as unknown as { oneOf: { properties: { type: { const: string } } }[] }).oneOf;
    expect(oneOf.map((schema) => schema.properties.type.const)).toEqual(names);
    for (const name of names) {
      expect(isRuleTypeName(name)).toBe(true);
      expect(RULE_TYPES.find((t) => t.type === name)?.cli.usage.startsWith(`${name} `)).toBe(true);
    }
    expect(Value.Check(RuleSchema, { id: '4', type: 'keyword', keyword: 'volcano' })).toBe(true);
    expect(Value.Check(RuleSchema, { id: '4', type: 'keyword' })).toBe(false);
    expect(isRuleTypeName('weather')).toBe(false);
    expect(isRuleTypeName('constructor')).toBe(false);
  });

  it("dispatches to the definition's own type", () => {
    expect(ruleTypeOf({ type: 'slot', channel: '4', start_time: NOW, duration: 60 }).type).toBe('slot');
    const named = (definition: RuleDefinition) => ruleTypeOf(definition).displayName(definition);
    expect(named({ type: 'series', series_id: 'SH1' })).toBe('SH1');
    expect(named({ type: 'keyword', keyword: 'volcano' })).toBe('volcano');
    expect(named({ type: 'program', channel: '4', start_time: NOW, name: 'Film' })).toBe('Film');
  });

  it('checks what the schema cannot say, naming the field, and stores channel numbers as sources do', () => {
    expect(() => checkRule({ type: 'series' }, NOW)).toThrow(BadRequestError);
    expect(() => checkRule({ type: 'slot', channel: '4', start_time: NOW - 7200, duration: 3600 }, NOW)).toThrow(
      /time slot is over/,
    );
    expect(
      checkRule({ type: 'slot', channel: '4', start_time: NOW - 7200, duration: 3600, weekly: true }, NOW),
    ).toMatchObject({ weekly: true });
    expect(() => checkRule({ type: 'program', channel: '4', start_time: NOW - 86400 }, NOW)).toThrow(/airing is over/);
    expect(checkRule({ type: 'program', channel: '7-1', start_time: NOW, channels: ['7-1', '8'] }, NOW)).toEqual({
      type: 'program',
      channel: '7.1',
      start_time: NOW,
      channels: ['7.1', '8'],
    });
  });

  it('says when one-time rules end, and that the others never do', () => {
    expect(
      ruleTypeOf({ type: 'slot', channel: '4', start_time: NOW, duration: 600 }).endsAt({
        type: 'slot',
        channel: '4',
        start_time: NOW,
        duration: 600,
      }),
    ).toBe(NOW + 600);
    const weekly = { type: 'slot', channel: '4', start_time: NOW, duration: 600, weekly: true } as const;
    expect(ruleTypeOf(weekly).endsAt(weekly)).toBeUndefined();
    const program = { type: 'program', channel: '4', start_time: NOW } as const;
    expect(ruleTypeOf(program).endsAt(program)).toBe(NOW + 86400);
    const series = { type: 'series', title: 'x' } as const;
    expect(ruleTypeOf(series).endsAt(series)).toBeUndefined();
  });

  it('reads back only stored definitions of a known type', () => {
    expect(asStoredRule({ id: 1, definition: { type: 'keyword', keyword: 'volcano' } })).toEqual({
      id: 1,
      definition: { type: 'keyword', keyword: 'volcano' },
    });
    for (const definition of [{ type: 'weather' }, { type: '__proto__' }, null, 'series', { keyword: 'x' }])
      expect(asStoredRule({ id: 1, definition })).toBeUndefined();
  });
  it('says what differs between types as properties of each, and no module outside the rules checks a type by name', () => {
    expect(
      Object.fromEntries(RULE_TYPES.map((type) => [type.type, [type.recordsByTime, type.jobsAreTheirTime]])),
    ).toEqual({
      series: [false, false],
      keyword: [false, false],
      slot: [true, true],
      program: [true, false],
    });
    const names = RULE_TYPES.map((type) => type.type).join('|');
    const check = new RegExp(
      `((type|name) [!=]==? '(${names})'|'(${names})' [!=]==? [\\w.]*(type|name)\\b|case '(${names})':)`,
    );
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const offenders = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter(
        (file) =>
          /\.tsx?$/.test(file) &&
          !file.startsWith(join('dvr', 'planning', 'rules')) &&
          file !== join('model', 'rule.schemas.ts'),
      )
      .filter((file) => check.test(readFileSync(join(src, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
