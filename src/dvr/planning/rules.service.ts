/**
 * Recording rules: checked by their type's module (dvr/planning/rules/), stored, and forgotten
 * once a one-time rule can plan nothing more. Every change asks for a new plan.
 */
import type { Logger } from 'pino';
import { NotFoundError } from '../../common/errors.js';
import type { Db } from '../../db/database.js';
import { deleteRule, getRule, insertRule, listRules, replaceRule } from '../../repositories/dvr/rules.repository.js';
import type { GuideLookup } from './rules/rule-type.js';
import { asStoredRule, checkRule, type RuleDefinition, ruleTypeOf, type StoredRule } from './rules/rule-types.js';

export interface RulesServiceOptions {
  /** Epoch milliseconds. */
  now: () => number;
  /** Called after every change, with the rule's id, to re-plan. */
  changed: (ruleId: number) => void;
  /**
   * The guide's airing on a channel at a time: what a new or edited rule keeps of it (a program rule its programme id
   * and title).
   */
  guide?: GuideLookup;
  logger?: Logger | undefined;
}

export class RulesService {
  /** Rule ids whose unknown type was already logged (once per id, not once per plan). */
  private readonly reportedUnknown = new Set<number>();

  constructor(
    private readonly db: Db,
    private readonly options: RulesServiceOptions,
  ) {}

  private nowSeconds(): number {
    return Math.floor(this.options.now() / 1000);
  }

  /** Every rule of a type this version knows, by id. */
  list(): StoredRule[] {
    return listRules(this.db).flatMap((record) => {
      const rule = asStoredRule(record);
      if (rule) return [rule];
      if (!this.reportedUnknown.has(record.id)) {
        this.reportedUnknown.add(record.id);
        this.options.logger?.warn(
          { rule: record.id },
          'a stored rule has a type this version does not know; it plans nothing: run the Antenna version that made it, or delete the rule',
        );
      }
      return [];
    });
  }

  get(id: number): StoredRule {
    const record = getRule(this.db, id);
    const rule = record && asStoredRule(record);
    if (!rule) throw new NotFoundError('rule', String(id));
    return rule;
  }

  create(definition: RuleDefinition): StoredRule {
    const checked = checkRule(definition, this.nowSeconds(), this.options.guide);
    const rule = { id: insertRule(this.db, checked, this.options.now()), definition: checked };
    this.options.changed(rule.id);
    return rule;
  }

  replace(id: number, definition: RuleDefinition): StoredRule {
    const previous = getRule(this.db, id);
    const checked = checkRule(
      definition,
      this.nowSeconds(),
      this.options.guide,
      previous && asStoredRule(previous)?.definition,
    );
    if (!replaceRule(this.db, id, checked, this.options.now())) throw new NotFoundError('rule', String(id));
    this.options.changed(id);
    return { id, definition: checked };
  }

  /** Removes a rule and its planned jobs; recordings it made stay, and one it is making goes on. */
  delete(id: number): void {
    if (!deleteRule(this.db, id)) throw new NotFoundError('rule', String(id));
    this.options.changed(id);
  }

  /** Stores a rule the DVR made itself (record now), without the checks or a re-plan; its id. */
  insertOwn(definition: RuleDefinition): number {
    return insertRule(this.db, definition, this.options.now());
  }

  /** Takes back a rule the DVR made itself, without a re-plan. */
  removeOwn(id: number): void {
    deleteRule(this.db, id);
  }

  /**
   * Every rule naming a channel number in `moves` names its new number instead (the user
   * renumbered those channels), all moves at once; no re-plan (the caller plans). How many changed.
   */
  followRenumber(moves: ReadonlyMap<string, string>): number {
    let changed = 0;
    for (const record of listRules(this.db)) {
      const definition = { ...(record.definition as { channel?: unknown; channels?: unknown }) };
      const moved = (number: unknown) => (typeof number === 'string' ? (moves.get(number) ?? number) : number);
      let touched = false;
      if (typeof definition.channel === 'string' && moves.has(definition.channel)) {
        definition.channel = moved(definition.channel);
        touched = true;
      }
      if (
        Array.isArray(definition.channels) &&
        definition.channels.some((number) => typeof number === 'string' && moves.has(number))
      ) {
        definition.channels = definition.channels.map(moved);
        touched = true;
      }
      if (touched && replaceRule(this.db, record.id, definition, this.options.now())) changed++;
    }
    return changed;
  }

  /**
   * One-time rules (a single programme, a slot that does not repeat) go a day after they end: they can plan nothing
   * more.
   */
  forgetPastOneTimeRules(now: number): void {
    for (const rule of this.list()) {
      const end = ruleTypeOf(rule.definition).endsAt(rule.definition);
      if (end !== undefined && end + 86400 < now) deleteRule(this.db, rule.id);
    }
  }
}
