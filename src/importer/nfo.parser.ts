/**
 * Kodi `.nfo` sidecars (tvshow.nfo, episode and movie NFOs) → the metadata fields
 * Antenna stores. Pure: takes the file's text. Every value stays a string until a
 * field needs a number (a title "1917" is a title). Documents that declare entities
 * are refused outright, so nothing in a file can make us fetch or expand anything.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface NfoMetadata {
  title?: string;
  /** The outline when there is one, else the plot. */
  summary?: string;
  /** The plot. */
  fullSummary?: string;
  genres?: string[];
  cast?: string[];
  directors?: string[];
  /** YYYY-MM-DD: premiered (shows, movies) or aired (episodes). */
  releaseDate?: string;
  releaseYear?: number;
  originalAirDate?: string;
  contentRating?: string;
  labels?: string[];
  season?: number;
  episode?: number;
  /** A movie's set: the movies collection it belongs to. */
  collection?: string;
  /** The `<uniqueid>` marked default (else the first, else the old `<id>`): IMDb, TMDB, TVDB... as written. */
  uniqueId?: string;
}

export type NfoResult = { ok: true; metadata: NfoMetadata } | { ok: false; reason: string };

/** Bigger NFO files are not read: real ones are a few kilobytes. */
export const MAX_NFO_BYTES = 1024 * 1024;

const ROOTS = ['tvshow', 'episodedetails', 'movie', 'musicvideo'] as const;
const LISTS = new Set(['genre', 'actor', 'director', 'tag', 'credits']);

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => LISTS.has(name),
});

type Node = Record<string, unknown>;

export function parseNfo(text: string): NfoResult {
  if (text.length > MAX_NFO_BYTES) return { ok: false, reason: 'NFO file too large; ignored' };
  if (/<!ENTITY/i.test(text)) return { ok: false, reason: 'NFO file declares XML entities; ignored' };
  // Kodi allows a URL line after the document; keep only the document itself.
  const end = /<\/(tvshow|episodedetails|movie|musicvideo)>/i.exec(text);
  const xml = end ? text.slice(0, end.index + end[0].length) : text;
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    return { ok: false, reason: `malformed NFO (line ${valid.err.line}: ${valid.err.msg}); imported from its name` };
  let document: Node;
  try {
    document = parser.parse(xml) as Node;
  } catch (error) {
    return { ok: false, reason: `malformed NFO (${(error as Error).message}); imported from its name` };
  }
  const rootName = ROOTS.find((name) => name in document);
  if (!rootName)
    return { ok: false, reason: 'NFO file is not a Kodi tvshow, episodedetails or movie document; ignored' };
  const root = document[rootName];
  // An empty document (<episodedetails/>) says nothing, which is not an error.
  if (typeof root !== 'object' || root === null) return { ok: true, metadata: {} };
  const metadata = toMetadata(root as Node);
  // Attributes are not parsed (nothing else needs them): the default one is found in the validated text.
  const uniqueId =
    identifier(DEFAULT_UNIQUE_ID.exec(xml)?.[1]) ??
    identifier(first((root as Node).uniqueid)) ??
    identifier((root as Node).id);
  return { ok: true, metadata: uniqueId ? { ...metadata, uniqueId } : metadata };
}

const DEFAULT_UNIQUE_ID = /<uniqueid\b[^>]*\bdefault\s*=\s*["']true["'][^>]*>\s*([^<]*?)\s*<\/uniqueid>/i;

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** An id as it may go out in program_id: short, plain characters. */
function identifier(value: unknown): string | undefined {
  const raw = text(value);
  return raw && /^[A-Za-z0-9._:-]{1,64}$/.test(raw) ? raw : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function texts(value: unknown, pick: (entry: unknown) => unknown = (entry) => entry): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list = value.map((entry) => text(pick(entry))).filter((entry): entry is string => entry !== undefined);
  return list.length > 0 ? [...new Set(list)] : undefined;
}

function date(value: unknown): string | undefined {
  const raw = text(value);
  return raw && /^\d{4}-\d{2}-\d{2}$/.test(raw) ? raw : undefined;
}

function integer(value: unknown, min: number, max: number): number | undefined {
  const raw = text(value);
  if (!raw || !/^\d+$/.test(raw)) return undefined;
  const number = Number(raw);
  return number >= min && number <= max ? number : undefined;
}

function toMetadata(node: Node): NfoMetadata {
  const plot = text(node.plot);
  const outline = text(node.outline);
  const premiered = date(node.premiered);
  const aired = date(node.aired);
  const year = integer(node.year, 1800, 2999) ?? (premiered ? Number(premiered.slice(0, 4)) : undefined);
  const set = node.set;
  const collection = typeof set === 'object' && set !== null ? text((set as Node).name) : text(set);
  const metadata: NfoMetadata = {
    title: text(node.title),
    summary: outline ?? plot,
    fullSummary: plot,
    genres: texts(node.genre),
    cast: texts(node.actor, (actor) => (typeof actor === 'object' && actor !== null ? (actor as Node).name : actor)),
    directors: texts(node.director),
    releaseDate: premiered ?? aired,
    releaseYear: year,
    originalAirDate: aired,
    contentRating: text(node.mpaa),
    labels: texts(node.tag),
    season: integer(node.season, 0, 9999),
    episode: integer(node.episode, 0, 99999),
    collection,
  };
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== undefined)) as NfoMetadata;
}
