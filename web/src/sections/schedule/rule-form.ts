/**
 * A pass (recording rule) as its form holds it, and back: every field a string or a
 * flag as the inputs give them, padding in minutes and times in local wall-clock time
 * (what people type), turned into the body `POST`/`PUT /dvr/rules` takes. Pure, so a
 * property test checks that a rule opened in the form and saved unchanged is the same
 * rule.
 */
import type { RuleBody, RuleTypeName, StoredRule } from '../../api/server-types';
import { searchNumber } from '../../lib/search-values';

export interface RuleForm {
  type: RuleTypeName;
  name: string;
  /** series */
  title: string;
  seriesId: string;
  /** keyword */
  keyword: string;
  /** slot and program: the channel, and the start as `YYYY-MM-DDTHH:MM[:SS]` local time */
  channel: string;
  start: string;
  /** slot */
  durationMinutes: string;
  weekly: boolean;
  /** options every type has */
  channels: string;
  newOnly: boolean;
  paddingBeforeMinutes: string;
  paddingAfterMinutes: string;
  keep: string;
  priority: string;
  paused: boolean;
}

export const RULE_TYPE_LABELS: Record<RuleTypeName, string> = {
  series: 'Series',
  keyword: 'Keyword',
  slot: 'Time slot',
  program: 'One airing',
};

export const RULE_TYPE_HELP: Record<RuleTypeName, string> = {
  series: 'Every airing of a series, by its exact title (or the guide’s series id).',
  keyword: 'Every airing whose title or summary contains a word or phrase.',
  slot: 'A channel at a time, once or every week, whatever is on.',
  program: 'One airing from the guide: its channel and start time.',
};

export function emptyForm(type: RuleTypeName = 'series'): RuleForm {
  return {
    type,
    name: '',
    title: '',
    seriesId: '',
    keyword: '',
    channel: '',
    start: '',
    durationMinutes: '60',
    weekly: false,
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
  const [y, mo, d, h, mi, s] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const at = new Date(y, mo - 1, d, h, mi, s);
  // new Date rolls 31 February over into March: such a date was not a date.
  if (at.getFullYear() !== y || at.getMonth() !== mo - 1 || at.getDate() !== d) return undefined;
  return Math.floor(at.getTime() / 1000);
}

const minutesOf = (seconds: number | undefined) => (seconds === undefined ? '' : String(seconds / 60));
const text = (value: number | undefined) => (value === undefined ? '' : String(value));

/** A stored rule (or a body) in the form, to edit it. */
export function formOf(rule: RuleBody | StoredRule): RuleForm {
  const form: RuleForm = {
    ...emptyForm(rule.type),
    name: rule.name ?? '',
    channels: (rule.channels ?? []).join(', '),
    newOnly: rule.new_only ?? false,
    paddingBeforeMinutes: minutesOf(rule.padding_before),
    paddingAfterMinutes: minutesOf(rule.padding_after),
    keep: text(rule.keep),
    priority: text(rule.priority),
    paused: rule.paused ?? false,
  };
  switch (rule.type) {
    case 'series':
      return { ...form, title: rule.title ?? '', seriesId: rule.series_id ?? '' };
    case 'keyword':
      return { ...form, keyword: rule.keyword };
    case 'slot':
      return { ...form, channel: rule.channel, start: toLocalInput(rule.start_time), durationMinutes: minutesOf(rule.duration), weekly: rule.weekly ?? false };
    case 'program':
      return { ...form, channel: rule.channel, start: toLocalInput(rule.start_time) };
  }
}

export type FormErrors = Partial<Record<keyof RuleForm, string>>;
export type FormResult = { body: RuleBody; errors?: undefined } | { body?: undefined; errors: FormErrors };

/** Limits the server checks too; checked here so the message can speak in minutes, as the form does. */
const PADDING_BEFORE_MAX_MINUTES = 60;
const PADDING_AFTER_MAX_MINUTES = 180;

interface Reader {
  errors: FormErrors;
  /** A whole number, or undefined for an empty field; a field that is neither gets `problem`. */
  integer(field: keyof RuleForm, value: string, problem: string): number | undefined;
  /** Minutes (decimals allowed) as whole seconds, within 0..max minutes. */
  minutes(field: keyof RuleForm, value: string, max: number, what: string): number | undefined;
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
    minutes(field, value, max, what) {
      if (value.trim() === '') return undefined;
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0 || n > max) {
        errors[field] = `${what} is a number of minutes from 0 to ${max}.`;
        return undefined;
      }
      return Math.round(n * 60);
    },
  };
}

/** Drops options left at nothing, so a saved rule carries only what was set. */
function compact<T extends Record<string, unknown>>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined && value !== false && value !== '')) as T;
}

/** The form as a rule body, or what to fix in it (per field, in words). */
export function bodyOf(form: RuleForm): FormResult {
  const read = reader();
  const channels = form.channels.split(/[\s,]+/).filter(Boolean);
  const options = {
    name: form.name.trim() || undefined,
    channels: channels.length > 0 ? channels : undefined,
    new_only: form.newOnly,
    padding_before: read.minutes('paddingBeforeMinutes', form.paddingBeforeMinutes, PADDING_BEFORE_MAX_MINUTES, 'Start early'),
    padding_after: read.minutes('paddingAfterMinutes', form.paddingAfterMinutes, PADDING_AFTER_MAX_MINUTES, 'Keep recording after the end'),
    keep: read.integer('keep', form.keep, 'Keep is a whole number of recordings (0 or empty: keep them all).'),
    priority: read.integer('priority', form.priority, 'Priority is a whole number (higher wins when tuners run out).'),
    paused: form.paused,
  };
  const start = fromLocalInput(form.start);
  const needsTime = form.type === 'slot' || form.type === 'program';
  if (needsTime && !form.channel.trim()) read.errors.channel = 'Give the channel number, such as 5 or 7.1.';
  if (needsTime && start === undefined) read.errors.start = 'Give the date and time it starts.';
  let body: RuleBody;
  switch (form.type) {
    case 'series':
      if (!form.title.trim() && !form.seriesId.trim()) read.errors.title = 'Give the series title as the guide writes it (or its series id).';
      body = compact({ type: 'series', title: form.title.trim() || undefined, series_id: form.seriesId.trim() || undefined, ...options });
      break;
    case 'keyword':
      if (form.keyword.trim().length < 2) read.errors.keyword = 'Give a word or phrase of at least two letters.';
      body = compact({ type: 'keyword', keyword: form.keyword.trim(), ...options });
      break;
    case 'slot': {
      const duration = read.minutes('durationMinutes', form.durationMinutes, 24 * 60, 'The length');
      if (duration === undefined || duration < 60) read.errors.durationMinutes ??= 'The length is a number of minutes from 1 to 1440.';
      body = compact({ type: 'slot', channel: form.channel.trim(), start_time: start ?? 0, duration: duration ?? 0, weekly: form.weekly, ...options });
      break;
    }
    case 'program':
      body = compact({ type: 'program', channel: form.channel.trim(), start_time: start ?? 0, ...options });
      break;
  }
  return Object.keys(read.errors).length > 0 ? { errors: read.errors } : { body };
}

/** The field of the form a server error names (`keep`, `channels.0`, `padding_after`...), to show it there. */
export function fieldOfParameter(parameter: string | undefined): keyof RuleForm | undefined {
  const FIELDS: Record<string, keyof RuleForm> = {
    name: 'name',
    title: 'title',
    series_id: 'seriesId',
    keyword: 'keyword',
    channel: 'channel',
    start_time: 'start',
    duration: 'durationMinutes',
    weekly: 'weekly',
    channels: 'channels',
    new_only: 'newOnly',
    padding_before: 'paddingBeforeMinutes',
    padding_after: 'paddingAfterMinutes',
    keep: 'keep',
    priority: 'priority',
    paused: 'paused',
  };
  return parameter === undefined ? undefined : FIELDS[parameter.split('.')[0] ?? ''];
}

/** The body of a stored rule (to PUT it back changed): its definition without the id. */
export function bodyOfStored(rule: StoredRule): RuleBody {
  const { id: _id, ...body } = rule;
  return body as RuleBody;
}

/** What a pass records, in a few words (`Series “Harbour Watch”`, `Channel 5, Tue 20:00, weekly`). */
export function describeRule(rule: RuleBody, formatTime: (epochSeconds: number) => string): string {
  switch (rule.type) {
    case 'series':
      return rule.title ? `Series “${rule.title}”` : `Series id ${rule.series_id ?? '?'}`;
    case 'keyword':
      return `Keyword “${rule.keyword}”`;
    case 'slot':
      return `Channel ${rule.channel}, ${formatTime(rule.start_time)} for ${Math.round(rule.duration / 60)} min${rule.weekly ? ', weekly' : ''}`;
    case 'program':
      return `${rule.title ? `“${rule.title}”, c` : 'C'}hannel ${rule.channel} at ${formatTime(rule.start_time)}`;
  }
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

/** What `/schedule/passes/new?type=&title=&channel=&start=` asks for (another section's "Record" link); anything else is ignored. */
export interface PassSearch {
  type?: RuleTypeName;
  title?: string;
  channel?: string;
  start?: number;
}

export function passSearch(search: Record<string, unknown>): PassSearch {
  const out: PassSearch = {};
  if (typeof search.type === 'string' && Object.hasOwn(RULE_TYPE_LABELS, search.type)) out.type = search.type as RuleTypeName;
  // The router reads `?title=1984` as a number.
  const title = typeof search.title === 'number' ? String(search.title) : search.title;
  if (typeof title === 'string' && title.trim()) out.title = title.slice(0, 300);
  const channel = typeof search.channel === 'number' ? String(search.channel) : search.channel;
  if (typeof channel === 'string' && /^\d{1,5}([.-]\d{1,5})?$/.test(channel)) out.channel = channel;
  const start = searchNumber(search.start);
  if (search.start !== undefined && Number.isInteger(start) && start > 0 && start < 253402300800) out.start = start;
  return out;
}

/** The new-pass form as a search filled it in. */
export function formOfSearch(search: PassSearch): RuleForm {
  const form = emptyForm(search.type);
  return {
    ...form,
    title: search.title ?? '',
    keyword: search.type === 'keyword' ? (search.title ?? '') : '',
    channel: search.channel ?? '',
    start: search.start !== undefined ? toLocalInput(search.start) : '',
  };
}
