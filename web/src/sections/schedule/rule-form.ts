/**
 * A pass (recording rule) as its form holds it, and back: every field a string or a
 * flag as the inputs give them, padding in minutes and times in local wall-clock time
 * (what people type), turned into the body `POST`/`PUT /dvr/rules` takes. Pure, so a
 * property test checks that a rule opened in the form and saved unchanged is the same
 * rule.
 */
import type { RuleBody, RuleTypeInfo, StoredRule } from '../../api/server-types';
import { searchNumber } from '../../lib/search-values';

type TypeField = RuleTypeInfo['fields'][number];

export interface RuleForm {
  type: string;
  /** The type's own fields (GET /dvr/rule-types), by body property: text as typed (minutes, local times), or a flag. */
  fields: Record<string, string | boolean>;
  /** The options every type has. */
  name: string;
  channels: string;
  newOnly: boolean;
  paddingBeforeMinutes: string;
  paddingAfterMinutes: string;
  keep: string;
  priority: string;
  paused: boolean;
}

/** A field of the form: one of the shared options, or a type's own field by its body property. */
export type FormField = Exclude<keyof RuleForm, 'type' | 'fields'> | `field:${string}`;
export const typeField = (name: string): FormField => `field:${name}`;

/** The type named `name` in the table, or undefined. */
export const typeNamed = (types: readonly RuleTypeInfo[], name: string) => types.find((info) => info.type === name);

export function emptyForm(info: RuleTypeInfo): RuleForm {
  return {
    type: info.type,
    fields: Object.fromEntries(info.fields.map((field) => [field.name, field.input === 'flag' ? false : ''])),
    name: '',
    channels: '',
    newOnly: false,
    paddingBeforeMinutes: '',
    paddingAfterMinutes: '',
    keep: '',
    priority: '',
    paused: false,
  };
}

const two = (n: number) => String(n).padStart(2, '0');

/** Epoch seconds as a `datetime-local` value in this browser's zone (seconds only when there are some). */
export function toLocalInput(epochSeconds: number): string {
  const at = new Date(epochSeconds * 1000);
  const base = `${String(at.getFullYear()).padStart(4, '0')}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`;
  return at.getSeconds() === 0 ? base : `${base}:${two(at.getSeconds())}`;
}

/** A `datetime-local` value as epoch seconds, or undefined when it is not one. */
export function fromLocalInput(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const at = new Date(y, mo - 1, d, h, mi, s);
  // new Date rolls 31 February over into March: such a date was not a date.
  if (at.getFullYear() !== y || at.getMonth() !== mo - 1 || at.getDate() !== d) return undefined;
  return Math.floor(at.getTime() / 1000);
}

const minutesOf = (seconds: number | undefined) => (seconds === undefined ? '' : String(seconds / 60));
const text = (value: number | undefined) => (value === undefined ? '' : String(value));

/** A field's value from a body, as the form shows it. */
function shown(field: TypeField, value: unknown): string | boolean {
  if (field.input === 'flag') return value === true;
  if (typeof value !== 'number') return typeof value === 'string' ? value : '';
  if (field.input === 'time') return toLocalInput(value);
  return field.input === 'minutes' ? minutesOf(value) : String(value);
}

/** A stored rule (or a body) in the form of its type, to edit it. */
export function formOf(rule: RuleBody | StoredRule, info: RuleTypeInfo): RuleForm {
  const values = rule as unknown as Record<string, unknown>;
  return {
    ...emptyForm(info),
    fields: Object.fromEntries(info.fields.map((field) => [field.name, shown(field, values[field.name])])),
    name: rule.name ?? '',
    channels: (rule.channels ?? []).join(', '),
    newOnly: rule.new_only ?? false,
    paddingBeforeMinutes: minutesOf(rule.padding_before),
    paddingAfterMinutes: minutesOf(rule.padding_after),
    keep: text(rule.keep),
    priority: text(rule.priority),
    paused: rule.paused ?? false,
  };
}

export type FormErrors = Partial<Record<FormField, string>>;
export type FormResult = { body: RuleBody; errors?: undefined } | { body?: undefined; errors: FormErrors };

/** Limits the server checks too; checked here so the message can speak in minutes, as the form does. */
const PADDING_BEFORE_MAX_MINUTES = 60;
const PADDING_AFTER_MAX_MINUTES = 180;

interface Reader {
  errors: FormErrors;
  /** A whole number, or undefined for an empty field; a field that is neither gets `problem`. */
  integer(field: FormField, value: string, problem: string): number | undefined;
  /** Minutes (decimals allowed) as whole seconds, within min..max minutes. */
  minutes(field: FormField, value: string, limits: { min?: number; max: number }, what: string): number | undefined;
}

function reader(): Reader {
  const errors: FormErrors = {};
  return {
    errors,
    integer(field, value, problem) {
      if (value.trim() === '') return undefined;
      const n = Number(value);
      if (!Number.isInteger(n)) errors[field] = problem;
      return Number.isInteger(n) ? n : undefined;
    },
    minutes(field, value, { min = 0, max }, what) {
      if (value.trim() === '') return undefined;
      const n = Number(value);
      if (!Number.isFinite(n) || n < min || n > max) {
        errors[field] = `${what} is a number of minutes from ${min} to ${max}.`;
        return undefined;
      }
      return Math.round(n * 60);
    },
  };
}

/** Drops options left at nothing, so a saved rule carries only what was set. */
function compact<T extends Record<string, unknown>>(body: T): T {
  return Object.fromEntries(
    Object.entries(body).filter(([, value]) => value !== undefined && value !== false && value !== ''),
  ) as T;
}

const isGiven = (value: string | boolean | undefined) =>
  value !== undefined && value !== false && String(value).trim() !== '';

/** A type's own field as the body has it, or undefined (an error is noted when it is wrong or missing). */
function fieldValue(field: TypeField, raw: string | boolean | undefined, read: Reader): unknown {
  const key = typeField(field.name);
  if (field.input === 'flag') return raw === true;
  const typed = typeof raw === 'string' ? raw.trim() : '';
  const what = field.label.replace(/ \(.*\)$/, '');
  if (typed === '') {
    if (field.required) read.errors[key] = MISSING[field.input](what);
    return undefined;
  }
  if (field.input === 'time') {
    const at = fromLocalInput(typed);
    if (at === undefined) read.errors[key] = MISSING.time(what);
    return at;
  }
  if (field.input === 'minutes') {
    const limits = { min: (field.minimum ?? 0) / 60, max: (field.maximum ?? 24 * 3600) / 60 };
    const seconds = read.minutes(key, typed, limits, what);
    if (seconds === undefined)
      read.errors[key] ??= `${what} is a number of minutes from ${limits.min} to ${limits.max}.`;
    return seconds;
  }
  if (field.min_length !== undefined && typed.length < field.min_length)
    read.errors[key] = `Give at least ${field.min_length} characters.`;
  return typed;
}

const MISSING: Record<TypeField['input'], (what: string) => string> = {
  text: (what) => `Give the ${what.toLowerCase()}.`,
  channel: () => 'Give the channel number, such as 5 or 7.1.',
  time: () => 'Give the date and time it starts.',
  minutes: (what) => `Give the ${what.toLowerCase()} in minutes.`,
  flag: () => '',
};

/** The form as a rule body of its type, or what to fix in it (per field, in words). */
export function bodyOf(form: RuleForm, info: RuleTypeInfo): FormResult {
  const read = reader();
  const channels = form.channels.split(/[\s,]+/).filter(Boolean);
  const own = Object.fromEntries(
    info.fields.map((field) => [field.name, fieldValue(field, form.fields[field.name], read)]),
  );
  const oneOf = info.one_of;
  if (oneOf && !oneOf.fields.some((name) => isGiven(form.fields[name])))
    read.errors[typeField(oneOf.fields[0] ?? '')] = oneOf.message;
  const body = compact({
    type: info.type,
    ...own,
    name: form.name.trim() || undefined,
    channels: channels.length > 0 ? channels : undefined,
    new_only: form.newOnly,
    padding_before: read.minutes(
      'paddingBeforeMinutes',
      form.paddingBeforeMinutes,
      { max: PADDING_BEFORE_MAX_MINUTES },
      'Start early',
    ),
    padding_after: read.minutes(
      'paddingAfterMinutes',
      form.paddingAfterMinutes,
      { max: PADDING_AFTER_MAX_MINUTES },
      'Keep recording after the end',
    ),
    keep: read.integer('keep', form.keep, 'Keep is a whole number of recordings (0 or empty: keep them all).'),
    priority: read.integer('priority', form.priority, 'Priority is a whole number (higher wins when tuners run out).'),
    paused: form.paused,
  });
  // The body has the fields of its type as the table describes them; the server checks it against the type's schema.
  return Object.keys(read.errors).length > 0 ? { errors: read.errors } : { body: body as unknown as RuleBody };
}

const OPTION_FIELDS: Record<string, FormField> = {
  name: 'name',
  channels: 'channels',
  new_only: 'newOnly',
  padding_before: 'paddingBeforeMinutes',
  padding_after: 'paddingAfterMinutes',
  keep: 'keep',
  priority: 'priority',
  paused: 'paused',
};

/**
 * The field of the form a server error names (`keep`, `channels.0`, a type's own `start_time`...), to show it there.
 */
export function fieldOfParameter(parameter: string | undefined, info: RuleTypeInfo): FormField | undefined {
  const name = parameter?.split('.')[0] ?? '';
  if (Object.hasOwn(OPTION_FIELDS, name)) return OPTION_FIELDS[name];
  return info.fields.some((field) => field.name === name) ? typeField(name) : undefined;
}

/** The body of a stored rule (to PUT it back changed): its definition without the id. */
export function bodyOfStored(rule: StoredRule): RuleBody {
  const { id: _id, ...body } = rule;
  return body as RuleBody;
}

/**
 * What a pass records, in a few words (`Series “Harbour Watch”`, `Channel 5, Tue 20:00 for 60 min, weekly`): its type's
 * first summary whose fields it has.
 */
export function describeRule(
  rule: RuleBody,
  info: RuleTypeInfo | undefined,
  formatTime: (epochSeconds: number) => string,
): string {
  const values = rule as unknown as Record<string, unknown>;
  const inputOf = new Map(info?.fields.map((field) => [field.name, field.input]));
  const shownValue = (name: string): string | undefined => {
    const value = values[name];
    const input = inputOf.get(name);
    if (input === 'flag') return value === true ? '' : undefined;
    if (typeof value === 'number')
      return input === 'time'
        ? formatTime(value)
        : input === 'minutes'
          ? String(Math.round(value / 60))
          : String(value);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  for (const summary of info?.summaries ?? []) {
    const names = [...summary.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
    if (names.every((name) => shownValue(name) !== undefined))
      return summary.replace(/\{(\w+)\}/g, (_all, name: string) => shownValue(name) ?? '');
  }
  return `${info?.label ?? rule.type} pass`;
}

/** The options a pass sets, as short phrases (`priority 5`, `keep 3`, `2 min early`, `new only`). */
export function ruleOptionPhrases(rule: RuleBody): string[] {
  const phrases: string[] = [];
  if (rule.priority) phrases.push(`priority ${rule.priority}`);
  if (rule.keep) phrases.push(`keep newest ${rule.keep}`);
  if (rule.padding_before) phrases.push(`${minutesOf(rule.padding_before)} min early`);
  if (rule.padding_after) phrases.push(`${minutesOf(rule.padding_after)} min late`);
  if (rule.new_only) phrases.push('new episodes only');
  if (rule.channels?.length) phrases.push(`channels ${rule.channels.join(', ')}`);
  return phrases;
}

/**
 * What `/schedule/passes/new?type=&title=&channel=&start=` asks for (another section's "Record" link); anything else is
 * ignored.
 */
export interface PassSearch {
  type?: string;
  title?: string;
  channel?: string;
  start?: number;
}

export function passSearch(search: Record<string, unknown>): PassSearch {
  const out: PassSearch = {};
  // Which types there are is the server's table: the form falls back to the first for a name it does not list.
  if (typeof search.type === 'string' && /^[a-z][a-z0-9-]{0,39}$/.test(search.type)) out.type = search.type;
  // The router reads `?title=1984` as a number.
  const title = typeof search.title === 'number' ? String(search.title) : search.title;
  if (typeof title === 'string' && title.trim()) out.title = title.slice(0, 300);
  const channel = typeof search.channel === 'number' ? String(search.channel) : search.channel;
  if (typeof channel === 'string' && /^\d{1,5}([.-]\d{1,5})?$/.test(channel)) out.channel = channel;
  const start = searchNumber(search.start);
  if (search.start !== undefined && Number.isInteger(start) && start > 0 && start < 253402300800) out.start = start;
  return out;
}

/**
 * The new-pass form as a search filled it in: its title in the type's first text field, channel and start where it has
 * them.
 */
export function formOfSearch(search: PassSearch, types: readonly RuleTypeInfo[]): RuleForm {
  const info = typeNamed(types, search.type ?? '') ?? types[0];
  if (!info) throw new Error('The server lists no rule types.');
  const form = emptyForm(info);
  const first = (input: TypeField['input']) => info.fields.find((field) => field.input === input)?.name;
  const filled: [string | undefined, string | undefined][] = [
    [first('text'), search.title],
    [first('channel'), search.channel],
    [first('time'), search.start !== undefined ? toLocalInput(search.start) : undefined],
  ];
  for (const [name, value] of filled) if (name !== undefined && value !== undefined) form.fields[name] = value;
  return form;
}
