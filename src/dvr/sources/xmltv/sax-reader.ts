/**
 * saxes events -> XMLTV channels and programmes: the state machine that collects each
 * entry's fields, recovers from well-formedness errors after the root opened (an entry
 * with an error is skipped and counted), and hands each entry to its handler as it closes.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { abortError } from './abortable-input.js';
import { XmltvDocumentError } from './document-error.js';
import {
  CHANNEL_NUMBER,
  parseDateText,
  parseDdProgid,
  parseOnscreen,
  parseXmltvNs,
  parseXmltvTime,
} from './field-parsers.js';
import type { XmltvChannel, XmltvCounts, XmltvHandlers, XmltvProgramme } from './xmltv.types.js';

/** saxes is fed at most this many characters at a time, so an abort is noticed mid-chunk. */
const SLICE_CHARS = 64 * 1024;

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

export class XmltvReader {
  private readonly parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  private readonly counts: XmltvCounts = { channels: 0, programmes: 0, skipped: 0 };
  private readonly programme = new ProgrammeDraft();
  private readonly channel = new ChannelDraft();
  private sawRoot = false;
  /** Anything but blank space was written (an empty download is told apart from other non-guides). */
  private sawText = false;
  /** The input has ended: saxes' last checks run (unclosed elements, an unfinished construct). */
  private ending = false;
  /** What those checks found: the document was cut short. */
  private endProblem: string | undefined;
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
    if (!this.sawText && /\S/.test(text)) this.sawText = true;
    if (text.length <= SLICE_CHARS) {
      this.parser.write(text);
      return;
    }
    for (let at = 0; at < text.length; at += SLICE_CHARS) {
      if (this.signal?.aborted) throw abortError(this.signal);
      this.parser.write(text.slice(at, at + SLICE_CHARS));
    }
  }

  /**
   * The input is over: the counts, or an XmltvDocumentError when the document is not
   * complete (its `<tv>` still open, or the input stopping inside a tag or comment):
   * what was handed over so far must not be used as the guide.
   */
  end(): XmltvCounts {
    this.ending = true;
    this.parser.close();
    if (this.endProblem !== undefined) {
      throw new XmltvDocumentError(
        `XMLTV document cut short: it ends before its closing </tv> (${this.endProblem})`,
        'incomplete',
      );
    }
    return this.counts;
  }

  private recover(error: Error): void {
    if (!this.sawRoot) {
      const why = this.ending && !this.sawText ? 'it is empty' : error.message;
      throw new XmltvDocumentError(`Not an XMLTV document: ${why}`, 'not_xmltv');
    }
    if (this.ending) {
      // saxes reports each unclosed element innermost first; the first says most.
      this.endProblem ??= error.message;
      return;
    }
    if (this.entry !== Entry.None) this.damaged = true;
    else this.counts.skipped++;
  }

  private open(tag: SaxesTagPlain): void {
    this.depth++;
    if (!this.sawRoot) {
      if (tag.name !== 'tv')
        throw new XmltvDocumentError(`Not an XMLTV document: the root element is <${tag.name}>, not <tv>`, 'not_xmltv');
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
      case 'title':
        if (p.title === undefined) this.collect(Field.Title);
        break;
      case 'sub-title':
        if (p.episodeTitle === undefined) this.collect(Field.SubTitle);
        break;
      case 'desc':
        if (p.summary === undefined) this.collect(Field.Desc);
        break;
      case 'category':
        this.collect(Field.Category);
        break;
      case 'episode-num':
        this.collect(Field.EpisodeNum, tag.attributes.system ?? 'onscreen');
        break;
      case 'date':
        if (p.date === undefined) this.collect(Field.Date);
        break;
      case 'new':
      case 'premiere':
        p.isNew = true;
        break;
      case 'previously-shown':
        p.previouslyShown = true;
        p.previouslyShownStart ??= tag.attributes.start;
        break;
      case 'rating':
        p.inRating = p.rating === undefined;
        break;
      case 'icon':
        p.icon ??= nonEmpty(tag.attributes.src);
        break;
      case 'image':
        if (p.image === undefined) this.collect(Field.Image);
        break;
    }
  }

  private openChannelChild(tag: SaxesTagPlain): void {
    switch (tag.name) {
      case 'display-name':
        this.collect(Field.DisplayName);
        break;
      case 'lcn':
        if (this.channel.lcn === undefined) this.collect(Field.Lcn);
        break;
      case 'icon':
        this.channel.icon ??= nonEmpty(tag.attributes.src);
        break;
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
      case Field.Title:
        p.title = text;
        break;
      case Field.SubTitle:
        p.episodeTitle = text;
        break;
      case Field.Desc:
        p.summary = text;
        break;
      case Field.Category:
        if (!p.categories.includes(text)) p.categories.push(text);
        break;
      case Field.EpisodeNum:
        this.storeEpisodeNum(text);
        break;
      case Field.Date:
        p.date = text;
        break;
      case Field.RatingValue:
        p.rating ??= text;
        break;
      case Field.Image:
        p.image = text;
        break;
      case Field.DisplayName:
        this.channel.displayNames.push(text);
        break;
      case Field.Lcn:
        this.channel.lcn = text;
        break;
    }
  }

  private storeEpisodeNum(text: string): void {
    const p = this.programme;
    switch (this.fieldSystem.toLowerCase()) {
      case 'xmltv_ns':
        p.ns ??= parseXmltvNs(text);
        break;
      case 'dd_progid':
        p.progid ??= text;
        break;
      case 'onscreen':
      case 'sxxexx':
      case 'common':
        p.onscreen ??= parseOnscreen(text);
        break;
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
    channel,
    start,
    title: draft.title,
    categories: draft.categories,
    isNew: draft.isNew,
    previouslyShown: draft.previouslyShown,
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
  const airDate =
    fromDate.date ??
    (draft.previouslyShownStart === undefined ? undefined : parseDateText(draft.previouslyShownStart).date);
  if (airDate !== undefined) programme.originalAirDate = airDate;
  if (fromDate.year !== undefined) programme.year = fromDate.year;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function refuseEntities(doctype: string): void {
  if (/<!ENTITY/i.test(doctype))
    throw new XmltvDocumentError(
      'XMLTV document refused: its DOCTYPE declares entities, which Antenna never expands',
      'refused',
    );
}
