/**
 * XMLTV guide -> channels and programmes, as a stream (saxes underneath).
 *
 * Guides are large (a 500-channel, 14-day guide is ~100 MB), so nothing here holds the
 * document: bytes are decoded chunk by chunk with a streaming TextDecoder, saxes
 * emits events, and each `<channel>` / `<programme>` is handed to its handler as soon
 * as it closes. Memory stays flat whatever the file size.
 *
 * Decisions (tested in test/unit/xmltv.parser.test.ts):
 * - Entities: saxes never fetches a DTD or expands declared entities. A DOCTYPE that
 *   declares any (`<!ENTITY`) is refused outright (Error), as the NFO parser does;
 *   `<!DOCTYPE tv SYSTEM "xmltv.dtd">` is fine.
 * - Hopeless input throws an Error ("Not an XMLTV document: ..."): no root element,
 *   a root other than `<tv>`, or any well-formedness error before the root opens
 *   (text, binary, HTML prologue).
 * - After `<tv>` opened, well-formedness errors never throw: saxes recovers and so do
 *   we. A channel/programme in which an error occurred (an undefined entity such as
 *   `&nbsp;`, a mismatched tag, ...) is dropped and counted once in `skipped`: saxes'
 *   recovery can fold markup into text, so its fields are suspect. An error outside
 *   any entry counts one in `skipped`; so does an entry cut off by the end of input.
 * - A bare '&' ("Tom & Jerry") is not such an error: it is repaired to '&amp;' before
 *   saxes sees it, because saxes would swallow everything up to the next ';' (tags and
 *   whole programmes, without a trace). See AmpersandRepair.
 * - Malformed entries are skipped and counted: a programme without channel, start or
 *   title, with an unparseable start/stop, or with stop <= start; a channel without id.
 * - Times are epoch seconds. Without a zone offset a time is UTC.
 * - Season/episode: `xmltv_ns` (0-based) wins field by field over `onscreen`
 *   (and `SxxExx`/`common`/no system, which are read the same way).
 * - `dd_progid` (Gracenote): `EP01234567.0012` -> programId `EP012345670012`; seriesId is
 *   `SH` + the 8-digit root for EP, SH and SP (sports) ids, none for MV (movies) or
 *   ids in another shape (kept as given, without seriesId).
 * - `<date>`: `YYYYMMDD`/`YYYY-MM-DD` -> originalAirDate and year; `YYYY` -> year only.
 *   `<previously-shown start>` gives originalAirDate (its date part, as written) when
 *   `<date>` did not.
 * - isNew: `<new/>` or `<premiere>` (a premiere is a first airing).
 * - image: the first `<icon src>`, else the first `<image>` URL.
 * - Gzipped input (magic bytes 1f 8b) is decompressed on the fly. Byte input is UTF-8
 *   unless a UTF-16 byte order mark or the XML declaration (e.g. ISO-8859-1) says
 *   otherwise; an encoding TextDecoder doesn't know is refused (Error).
 */
import { pipeline, Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import { SaxesParser, type SaxesTagPlain } from 'saxes';

export interface XmltvChannel {
  id: string;
  displayNames: string[];
  number?: string;
  icon?: string;
}

export interface XmltvProgramme {
  channel: string;
  /** Epoch seconds. */
  start: number;
  /** Epoch seconds. */
  stop?: number;
  title: string;
  episodeTitle?: string;
  /** 1-based (xmltv_ns is converted; onscreen is taken as written). */
  season?: number;
  episode?: number;
  summary?: string;
  categories: string[];
  /** 'YYYY-MM-DD' */
  originalAirDate?: string;
  isNew: boolean;
  previouslyShown: boolean;
  rating?: string;
  image?: string;
  programId?: string;
  seriesId?: string;
  year?: number;
}

export interface XmltvHandlers {
  channel?(channel: XmltvChannel): void;
  programme?(programme: XmltvProgramme): void;
}

export interface XmltvCounts {
  channels: number;
  programmes: number;
  skipped: number;
}

/** saxes is fed at most this many characters at a time, so an abort is noticed mid-chunk. */
const SLICE_CHARS = 64 * 1024;
/** Bytes gathered before deciding on gzip and the declared encoding. */
const HEAD_BYTES = 1024;

export async function parseXmltv(input: AsyncIterable<Buffer | string>, handlers: XmltvHandlers, options: { signal?: AbortSignal } = {}): Promise<XmltvCounts> {
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const reader = new XmltvReader(handlers, signal);
  const ampersands = new AmpersandRepair();
  try {
    for await (const text of decodeXmltv(abortable(input, signal)[Symbol.asyncIterator]())) reader.write(ampersands.push(text));
    reader.write(ampersands.end());
  } catch (error) {
    // Whatever a stream threw while being torn down, an abort is reported as one.
    if (signal?.aborted) throw abortError(signal);
    throw error;
  }
  return reader.end();
}

// ---------------------------------------------------------------------------
// Values

/**
 * XMLTV time -> epoch seconds: 'YYYYMMDDhhmmss +hhmm', any suffix of the time part
 * may be missing ('YYYYMMDDhhmm', 'YYYYMMDD', 'YYYY'); the offset may be '+hh:mm',
 * '+hh', 'Z', 'UTC' or 'GMT'; no offset means UTC. Undefined for anything else,
 * including impossible dates. Read by character code, not a regex: it runs twice
 * per programme.
 */
export function parseXmltvTime(text: string): number | undefined {
  const s = text.trim();
  let digits = 0;
  while (digits < s.length && isDigit(s.charCodeAt(digits))) digits++;
  if (digits < 4 || digits > 14 || digits % 2 !== 0) return undefined;
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = digits >= 6 ? twoDigits(s, 4) : 1;
  const day = digits >= 8 ? twoDigits(s, 6) : 1;
  const hour = digits >= 10 ? twoDigits(s, 8) : 0;
  const minute = digits >= 12 ? twoDigits(s, 10) : 0;
  const second = digits >= 14 ? twoDigits(s, 12) : 0;
  if (!isValidDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = parseOffset(s, digits);
  if (offset === undefined) return undefined;
  return daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
}

/** The zone after the digits, in seconds east of UTC: '', ' +0100', '-05:00', '+01', 'Z', ' UTC'. */
function parseOffset(s: string, from: number): number | undefined {
  let i = from;
  while (i < s.length && s.charCodeAt(i) === 32) i++;
  if (i === s.length) return 0;
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return /^(?:Z|UTC|GMT)$/i.test(s.slice(i)) ? 0 : undefined;
  const rest = s.length - i - 1;
  const colon = rest === 5 && s.charCodeAt(i + 3) === 58 ? 1 : 0;
  if (rest !== 2 && rest !== 4 + colon) return undefined;
  if (!isDigit(s.charCodeAt(i + 1)) || !isDigit(s.charCodeAt(i + 2))) return undefined;
  const hours = twoDigits(s, i + 1);
  let minutes = 0;
  if (rest > 2) {
    if (!isDigit(s.charCodeAt(i + 3 + colon)) || !isDigit(s.charCodeAt(i + 4 + colon))) return undefined;
    minutes = twoDigits(s, i + 3 + colon);
  }
  if (hours > 14 || minutes > 59) return undefined;
  return (sign === 45 ? -1 : 1) * (hours * 3600 + minutes * 60);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Two ASCII digits (already checked) at `at`, as a number. */
function twoDigits(s: string, at: number): number {
  return (s.charCodeAt(at) - 48) * 10 + s.charCodeAt(at + 1) - 48;
}

/** xmltv_ns 'season.episode.part', each 0-based and optionally 'n/total' -> 1-based numbers. */
export function parseXmltvNs(text: string): { season?: number; episode?: number } {
  const parts = text.split('.');
  if (parts.length < 2 || parts.length > 3) return {};
  const result: { season?: number; episode?: number } = {};
  const season = zeroBased(parts[0] ?? '');
  const episode = zeroBased(parts[1] ?? '');
  if (season !== undefined) result.season = season + 1;
  if (episode !== undefined) result.episode = episode + 1;
  return result;
}

const SEASON_EPISODE = /\bS(?:eason)?\s*(\d{1,4})\s*[-.,:]?\s*E(?:p(?:isode)?)?\.?\s*(\d{1,5})/i;
const CROSS = /\b(\d{1,4})x(\d{1,5})\b/i;
const SEASON_ONLY = /\bS(?:eason)?\s*(\d{1,4})\b/i;
const EPISODE_ONLY = /\bE(?:p(?:isode)?)?\.?\s*(\d{1,5})\b/i;

/** On-screen numbering: 'S01E05', 'S1 E5', 'Season 1 Episode 5', '1x05', 'E5', 'S2'. Numbers as written. */
export function parseOnscreen(text: string): { season?: number; episode?: number } {
  const both = SEASON_EPISODE.exec(text) ?? CROSS.exec(text);
  if (both !== null) return { season: Number(both[1]), episode: Number(both[2]) };
  const result: { season?: number; episode?: number } = {};
  const season = SEASON_ONLY.exec(text);
  const episode = EPISODE_ONLY.exec(text);
  if (season !== null) result.season = Number(season[1]);
  if (episode !== null) result.episode = Number(episode[1]);
  return result;
}

function zeroBased(part: string): number | undefined {
  const slash = part.indexOf('/');
  const value = (slash === -1 ? part : part.slice(0, slash)).trim();
  return /^\d{1,6}$/.test(value) ? Number(value) : undefined;
}

const DATE = /^(\d{4})(?:(-?)(\d\d)\2(\d\d))?/;

/** `<date>` / `<previously-shown start>`: the year, and the full date when there is one. */
function parseDateText(text: string): { year?: number; date?: string } {
  const m = DATE.exec(text.trim());
  if (m === null) return {};
  const year = Number(m[1]);
  if (year === 0) return {};
  if (m[3] === undefined || m[4] === undefined || !isValidDate(year, Number(m[3]), Number(m[4]))) return { year };
  return { year, date: `${m[1]}-${m[3]}-${m[4]}` };
}

const GRACENOTE_ID = /^(EP|SH|SP|MV)(\d{8})\.?(\d{4})$/;

/** Gracenote (dd_progid) id -> programId without the dot, and the series' SH id. */
function parseDdProgid(text: string): { programId?: string; seriesId?: string } {
  const id = text.trim();
  const m = GRACENOTE_ID.exec(id);
  if (m === null) return id === '' ? {} : { programId: id };
  const programId = `${m[1]}${m[2]}${m[3]}`;
  return m[1] === 'MV' ? { programId } : { programId, seriesId: `SH${m[2]}` };
}

const CHANNEL_NUMBER = /^\d{1,5}(?:[.-]\d{1,5})?$/;

function isValidDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant); unlike Date.UTC, years 0-99 are years 0-99. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

// ---------------------------------------------------------------------------
// Events -> entries

/** Which element's text is being collected. */
const enum Field {
  None,
  Title,
  SubTitle,
  Desc,
  Category,
  EpisodeNum,
  Date,
  RatingValue,
  Image,
  DisplayName,
  Lcn,
}

const enum Entry {
  None,
  Channel,
  Programme,
}

/** What a `<programme>` said so far; one instance, reset per programme. */
class ProgrammeDraft {
  attributes: Record<string, string> = {};
  title: string | undefined;
  episodeTitle: string | undefined;
  summary: string | undefined;
  categories: string[] = [];
  ns: { season?: number; episode?: number } | undefined;
  onscreen: { season?: number; episode?: number } | undefined;
  progid: string | undefined;
  date: string | undefined;
  isNew = false;
  previouslyShown = false;
  previouslyShownStart: string | undefined;
  rating: string | undefined;
  inRating = false;
  icon: string | undefined;
  image: string | undefined;

  reset(attributes: Record<string, string>): void {
    this.attributes = attributes;
    this.title = this.episodeTitle = this.summary = undefined;
    this.categories = []; // handed to the consumer, so never reused
    this.ns = this.onscreen = undefined;
    this.progid = this.date = this.previouslyShownStart = this.rating = this.icon = this.image = undefined;
    this.isNew = this.previouslyShown = this.inRating = false;
  }
}

class ChannelDraft {
  id: string | undefined;
  displayNames: string[] = [];
  lcn: string | undefined;
  icon: string | undefined;

  reset(attributes: Record<string, string>): void {
    this.id = attributes.id?.trim();
    this.displayNames = [];
    this.lcn = this.icon = undefined;
  }
}

class XmltvReader {
  private readonly parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  private readonly counts: XmltvCounts = { channels: 0, programmes: 0, skipped: 0 };
  private readonly programme = new ProgrammeDraft();
  private readonly channel = new ChannelDraft();
  private sawRoot = false;
  private depth = 0;
  private entry = Entry.None;
  private entryDepth = 0;
  private damaged = false;
  private field = Field.None;
  private fieldDepth = 0;
  private fieldSystem = '';
  private text = '';

  constructor(
    private readonly handlers: XmltvHandlers,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.parser.on('doctype', refuseEntities);
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('closetag', () => this.close());
    this.parser.on('cdata', (text) => {
      if (this.field !== Field.None) this.text += text;
    });
    this.parser.on('error', (error) => this.recover(error));
  }

  write(text: string): void {
    if (text.length <= SLICE_CHARS) {
      this.parser.write(text);
      return;
    }
    for (let at = 0; at < text.length; at += SLICE_CHARS) {
      if (this.signal?.aborted) throw abortError(this.signal);
      this.parser.write(text.slice(at, at + SLICE_CHARS));
    }
  }

  end(): XmltvCounts {
    this.parser.close();
    // saxes reports unclosed tags but never closes them: an entry cut off by the end is lost.
    if (this.entry !== Entry.None) this.counts.skipped++;
    return this.counts;
  }

  private recover(error: Error): void {
    if (!this.sawRoot) throw new Error(`Not an XMLTV document: ${error.message}`);
    if (this.entry !== Entry.None) this.damaged = true;
    else this.counts.skipped++;
  }

  private open(tag: SaxesTagPlain): void {
    this.depth++;
    if (!this.sawRoot) {
      if (tag.name !== 'tv') throw new Error(`Not an XMLTV document: the root element is <${tag.name}>, not <tv>`);
      this.sawRoot = true;
    } else if (this.entry === Entry.None) {
      this.openEntry(tag);
    } else if (this.depth === this.entryDepth + 1) {
      if (this.entry === Entry.Programme) this.openProgrammeChild(tag);
      else this.openChannelChild(tag);
    } else if (this.programme.inRating && this.depth === this.entryDepth + 2 && tag.name === 'value') {
      this.collect(Field.RatingValue);
    }
  }

  // Entries are recognised at any depth: after saxes recovers from a broken closing
  // tag the document may look closed, yet the following programmes are intact.
  private openEntry(tag: SaxesTagPlain): void {
    if (tag.name === 'programme') {
      this.entry = Entry.Programme;
      this.programme.reset(tag.attributes);
    } else if (tag.name === 'channel') {
      this.entry = Entry.Channel;
      this.channel.reset(tag.attributes);
    } else {
      return;
    }
    this.entryDepth = this.depth;
    this.damaged = false;
  }

  private openProgrammeChild(tag: SaxesTagPlain): void {
    const p = this.programme;
    switch (tag.name) {
      case 'title': if (p.title === undefined) this.collect(Field.Title); break;
      case 'sub-title': if (p.episodeTitle === undefined) this.collect(Field.SubTitle); break;
      case 'desc': if (p.summary === undefined) this.collect(Field.Desc); break;
      case 'category': this.collect(Field.Category); break;
      case 'episode-num': this.collect(Field.EpisodeNum, tag.attributes.system ?? 'onscreen'); break;
      case 'date': if (p.date === undefined) this.collect(Field.Date); break;
      case 'new': case 'premiere': p.isNew = true; break;
      case 'previously-shown':
        p.previouslyShown = true;
        p.previouslyShownStart ??= tag.attributes.start;
        break;
      case 'rating': p.inRating = p.rating === undefined; break;
      case 'icon': p.icon ??= nonEmpty(tag.attributes.src); break;
      case 'image': if (p.image === undefined) this.collect(Field.Image); break;
    }
  }

  private openChannelChild(tag: SaxesTagPlain): void {
    switch (tag.name) {
      case 'display-name': this.collect(Field.DisplayName); break;
      case 'lcn': if (this.channel.lcn === undefined) this.collect(Field.Lcn); break;
      case 'icon': this.channel.icon ??= nonEmpty(tag.attributes.src); break;
    }
  }

  private readonly onText = (text: string): void => {
    this.text += text;
  };

  // The text handler is attached only while a wanted element is open: saxes then
  // skips slicing out the whitespace between all the other tags.
  private collect(field: Field, system = ''): void {
    this.field = field;
    this.fieldDepth = this.depth;
    this.fieldSystem = system;
    this.text = '';
    this.parser.on('text', this.onText);
  }

  private stopCollecting(): void {
    this.field = Field.None;
    this.text = '';
    this.parser.off('text');
  }

  private close(): void {
    if (this.field !== Field.None && this.depth === this.fieldDepth) {
      const field = this.field;
      const text = this.text.trim();
      this.stopCollecting();
      this.store(field, text);
    }
    if (this.depth === this.entryDepth + 1 && this.entry === Entry.Programme) this.programme.inRating = false;
    if (this.entry !== Entry.None && this.depth === this.entryDepth) this.closeEntry();
    this.depth--;
  }

  private store(field: Field, text: string): void {
    if (text === '') return;
    const p = this.programme;
    switch (field) {
      case Field.Title: p.title = text; break;
      case Field.SubTitle: p.episodeTitle = text; break;
      case Field.Desc: p.summary = text; break;
      case Field.Category: if (!p.categories.includes(text)) p.categories.push(text); break;
      case Field.EpisodeNum: this.storeEpisodeNum(text); break;
      case Field.Date: p.date = text; break;
      case Field.RatingValue: p.rating ??= text; break;
      case Field.Image: p.image = text; break;
      case Field.DisplayName: this.channel.displayNames.push(text); break;
      case Field.Lcn: this.channel.lcn = text; break;
    }
  }

  private storeEpisodeNum(text: string): void {
    const p = this.programme;
    switch (this.fieldSystem.toLowerCase()) {
      case 'xmltv_ns': p.ns ??= parseXmltvNs(text); break;
      case 'dd_progid': p.progid ??= text; break;
      case 'onscreen': case 'sxxexx': case 'common': p.onscreen ??= parseOnscreen(text); break;
    }
  }

  private closeEntry(): void {
    const entry = this.entry;
    this.entry = Entry.None;
    if (this.field !== Field.None) this.stopCollecting();
    if (this.damaged) {
      this.counts.skipped++;
      return;
    }
    const built = entry === Entry.Programme ? buildProgramme(this.programme) : buildChannel(this.channel);
    if (built === undefined) {
      this.counts.skipped++;
      return;
    }
    // A handler may abort: stop before handing over anything more.
    if (this.signal?.aborted) throw abortError(this.signal);
    if (entry === Entry.Programme) {
      this.counts.programmes++;
      this.handlers.programme?.(built as XmltvProgramme);
    } else {
      this.counts.channels++;
      this.handlers.channel?.(built as XmltvChannel);
    }
  }
}

function buildChannel(draft: ChannelDraft): XmltvChannel | undefined {
  if (draft.id === undefined || draft.id === '') return undefined;
  const channel: XmltvChannel = { id: draft.id, displayNames: draft.displayNames };
  // An explicit logical channel number beats one guessed from the display names.
  const number = draft.lcn ?? draft.displayNames.find((name) => CHANNEL_NUMBER.test(name));
  if (number !== undefined) channel.number = number;
  if (draft.icon !== undefined) channel.icon = draft.icon;
  return channel;
}

function buildProgramme(draft: ProgrammeDraft): XmltvProgramme | undefined {
  const channel = draft.attributes.channel?.trim();
  const startText = draft.attributes.start;
  const stopText = draft.attributes.stop;
  if (!channel || startText === undefined || draft.title === undefined) return undefined;
  const start = parseXmltvTime(startText);
  const stop = stopText === undefined ? undefined : parseXmltvTime(stopText);
  if (start === undefined || (stopText !== undefined && (stop === undefined || stop <= start))) return undefined;
  const programme: XmltvProgramme = {
    channel, start, title: draft.title, categories: draft.categories, isNew: draft.isNew, previouslyShown: draft.previouslyShown,
  };
  if (stop !== undefined) programme.stop = stop;
  if (draft.episodeTitle !== undefined) programme.episodeTitle = draft.episodeTitle;
  if (draft.summary !== undefined) programme.summary = draft.summary;
  addNumbering(programme, draft);
  addDates(programme, draft);
  if (draft.rating !== undefined) programme.rating = draft.rating;
  const image = draft.icon ?? draft.image;
  if (image !== undefined) programme.image = image;
  if (draft.progid !== undefined) Object.assign(programme, parseDdProgid(draft.progid));
  return programme;
}

function addNumbering(programme: XmltvProgramme, draft: ProgrammeDraft): void {
  const season = draft.ns?.season ?? draft.onscreen?.season;
  const episode = draft.ns?.episode ?? draft.onscreen?.episode;
  if (season !== undefined) programme.season = season;
  if (episode !== undefined) programme.episode = episode;
}

function addDates(programme: XmltvProgramme, draft: ProgrammeDraft): void {
  const fromDate = draft.date === undefined ? {} : parseDateText(draft.date);
  const airDate = fromDate.date ?? (draft.previouslyShownStart === undefined ? undefined : parseDateText(draft.previouslyShownStart).date);
  if (airDate !== undefined) programme.originalAirDate = airDate;
  if (fromDate.year !== undefined) programme.year = fromDate.year;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function refuseEntities(doctype: string): void {
  if (/<!ENTITY/i.test(doctype)) throw new Error('XMLTV document refused: its DOCTYPE declares entities, which Antenna never expands');
}

// ---------------------------------------------------------------------------
// Bytes -> text

/** Decodes the input to text: gunzips it if needed and honours the declared encoding. */
async function* decodeXmltv(chunks: AsyncIterator<Buffer | string>): AsyncGenerator<string> {
  try {
    const head = await readHead(chunks);
    if (head === undefined) return;
    if (typeof head === 'string') {
      if (head !== '') yield head;
      yield* decodeRest(chunks, new TextDecoder());
    } else if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
      yield* decodeXmltv(gunzip(head, chunks)[Symbol.asyncIterator]());
    } else {
      const decoder = decoderFor(head);
      const text = decoder.decode(head, { stream: true });
      if (text !== '') yield text;
      yield* decodeRest(chunks, decoder);
    }
  } finally {
    closeQuietly(chunks);
  }
}

/** The first chunk if it is text, else the first HEAD_BYTES bytes (or all, if fewer). */
async function readHead(chunks: AsyncIterator<Buffer | string>): Promise<Buffer | string | undefined> {
  const buffers: Buffer[] = [];
  let size = 0;
  while (size < HEAD_BYTES) {
    const next = await chunks.next();
    if (next.done === true) break;
    if (typeof next.value === 'string' && buffers.length === 0) return next.value;
    const buffer = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    buffers.push(buffer);
    size += buffer.length;
  }
  return buffers.length === 0 ? undefined : Buffer.concat(buffers);
}

async function* decodeRest(chunks: AsyncIterator<Buffer | string>, decoder: TextDecoder): AsyncGenerator<string> {
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) break;
    const text = typeof next.value === 'string' ? next.value : decoder.decode(next.value, { stream: true });
    if (text !== '') yield text;
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}

const DECLARED_ENCODING = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/;

function decoderFor(head: Buffer): TextDecoder {
  // A UTF-16 byte order mark says more than a declaration we could not read as ASCII.
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le');
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be');
  const declared = DECLARED_ENCODING.exec(head.toString('latin1'))?.[1];
  if (declared === undefined) return new TextDecoder();
  try {
    return new TextDecoder(declared);
  } catch {
    throw new Error(`XMLTV document refused: unsupported encoding "${declared}"`);
  }
}

function gunzip(head: Buffer, rest: AsyncIterator<Buffer | string>): AsyncIterable<Buffer> {
  async function* compressed(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const next = await rest.next();
      if (next.done === true) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  }
  // pipeline tears both streams down on an error; iterating the gunzip stream rethrows it.
  return pipeline(Readable.from(compressed()), createGunzip(), () => {});
}

// ---------------------------------------------------------------------------
// Bare ampersands

/** A '&' that does not start a character or entity reference. */
const BARE_AMPERSAND = /&(?!(?:[A-Za-z_:][\w.:-]{0,40}|#\d{1,10}|#x[\dA-Fa-f]{1,10});)/g;
/** Longest reference BARE_AMPERSAND accepts, '&' and ';' included. */
const LONGEST_REFERENCE = 44;
const CDATA_OPEN = '<![CDATA[';

/**
 * Hand-made guides write "Tom & Jerry". saxes would read everything up to the next ';'
 * as an entity name, swallowing tags and whole programmes without a trace, so such a
 * '&' becomes '&amp;' before saxes sees it. CDATA sections, where '&' is literal, are
 * left alone. Text that can't be judged yet (a '&' or '<![CDATA[' cut by the chunk's
 * end) is held back for the next chunk.
 */
class AmpersandRepair {
  private held = '';
  private inCdata = false;

  push(chunk: string): string {
    return this.run(this.held + chunk, false);
  }

  end(): string {
    return this.run(this.held, true);
  }

  private run(text: string, final: boolean): string {
    this.held = '';
    let out = '';
    let at = 0;
    while (at < text.length) {
      if (this.inCdata) {
        const close = text.indexOf(']]>', at);
        if (close === -1) {
          const keep = final ? text.length : Math.max(at, text.length - 2); // ']]' may end the chunk
          this.held = text.slice(keep);
          return out + text.slice(at, keep);
        }
        out += text.slice(at, close + 3);
        at = close + 3;
        this.inCdata = false;
      } else {
        const open = text.indexOf(CDATA_OPEN, at);
        if (open === -1) {
          const keep = final ? text.length : undecided(text, at);
          this.held = text.slice(keep);
          return out + repair(text.slice(at, keep));
        }
        out += repair(text.slice(at, open)) + CDATA_OPEN;
        at = open + CDATA_OPEN.length;
        this.inCdata = true;
      }
    }
    return out;
  }
}

function repair(text: string): string {
  return text.includes('&') ? text.replace(BARE_AMPERSAND, '&amp;') : text;
}

/** Where the part of `text` (from `from`) that the next chunk may still change begins. */
function undecided(text: string, from: number): number {
  let keep = text.length;
  const amp = text.lastIndexOf('&');
  if (amp >= from && text.length - amp < LONGEST_REFERENCE && text.indexOf(';', amp) === -1) keep = amp;
  const lt = text.lastIndexOf('<');
  if (lt >= from && lt < keep && CDATA_OPEN.startsWith(text.slice(lt))) keep = lt;
  return keep;
}

// ---------------------------------------------------------------------------
// Abort

function abortError(signal: AbortSignal): Error {
  const error = new Error('XMLTV parsing aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/** The input, but a pending read rejects as soon as the signal aborts (a stalled download must not hang us). */
async function* abortable<T>(input: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  const iterator = input[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    closeQuietly(iterator);
  }
}

/** Releases a source without waiting: a stalled one may never settle its pending read. */
function closeQuietly(iterator: AsyncIterator<unknown>): void {
  void Promise.resolve(iterator.return?.()).catch(() => {});
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
