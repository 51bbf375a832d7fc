/**
 * Whether a refresh of a source or guide is believable enough to replace what the last
 * good one gave (pure; table-tested in test/unit/refresh-checks.test.ts). A refresh is
 * applied only when it is; otherwise dvr-sources.service.ts keeps everything as it was,
 * stores the reason as the source's or guide's `error` and logs what to do.
 *
 * Not applied, whatever the user says:
 * - unreadable: the fetch failed (network, timeout, an HTTP error status, a missing file);
 * - not_recognised: the body is not the expected format (nothing at all, a web page with
 *   a 200, text with no playlist entries, a document that is not XMLTV);
 * - incomplete: an XMLTV document cut short (its `<tv>` never closed, a gzip stream ending early).
 * Not applied unless the user confirms it (`?accept=true`), since the source may really
 * have changed:
 * - empty: no channels (a source) or no programmes (a guide) where the last good refresh had some;
 * - shrinks: more than `MAX_REMOVED_SHARE` (one half) of what is there would go: of a
 *   source's channels (by number: a renumbered channel goes too, as rules name numbers),
 *   of a guide's programmes that have not ended yet (by count).
 */
import { REJECTION_KINDS, type RejectionKind } from '../../model/dvr/dvr.schemas.js';
import { SourceError } from './source-reader.js';
import { XmltvDocumentError } from './xmltv/document-error.js';

/** The share of a source's channels, or of a guide's programmes still to come, a refresh may remove unconfirmed. */
export const MAX_REMOVED_SHARE = 0.5;

export { REJECTION_KINDS, type RejectionKind };

/** Rejections the user's confirmation overrides: what was read is fine, only how much it removes is in doubt. */
/** Whether a stored text is one of the kinds (a column read back). */
export const isRejectionKind = (text: string): text is RejectionKind =>
  (REJECTION_KINDS as readonly string[]).includes(text);

export function needsConfirmation(kind: RejectionKind): boolean {
  return kind === 'empty' || kind === 'shrinks';
}

/** A refresh read something, but not something to apply; the message is for the user. */
export class RefreshRejected extends Error {
  override readonly name = 'RefreshRejected';
  constructor(
    message: string,
    readonly kind: RejectionKind,
  ) {
    super(message);
  }
}

/** What kind of rejection an error thrown while reading a source or guide is. */
export function rejectionKind(error: unknown): RejectionKind {
  if (error instanceof RefreshRejected) return error.kind;
  if (error instanceof XmltvDocumentError) return error.problem === 'incomplete' ? 'incomplete' : 'not_recognised';
  if (error instanceof SourceError) return error.reason === 'invalid' ? 'not_recognised' : 'unreadable';
  const code = (error as { code?: unknown } | null)?.code;
  // zlib: a gzip stream that ends early ("unexpected end of file"), or one that is not gzip after all.
  if (code === 'Z_BUF_ERROR') return 'incomplete';
  if (typeof code === 'string' && code.startsWith('Z_')) return 'not_recognised';
  return 'unreadable';
}

/** What to do about a rejection, as the log line says it after "keeping ...:". */
export function advice(kind: RejectionKind, what: 'source' | 'guide', id: string): string {
  switch (kind) {
    case 'unreadable':
      return `the error says why; check the ${what}'s URL or file and the network (the next refresh tries again)`;
    case 'not_recognised':
      return `the error says why; the ${what}'s URL answered something else (a login or error page?): check the URL and the account`;
    case 'incomplete':
      return `the download was cut short; the next refresh tries again (if it keeps happening, check the network or the provider)`;
    case 'empty':
    case 'shrinks':
      return `if the ${what} really changed, confirm it: ${confirmation(what, id)}`;
  }
}

/** How the user confirms a refresh that removes much: the API call and the command. */
export function confirmation(what: 'source' | 'guide', id: string): string {
  return `POST /dvr/${what}s/${id}/refresh?accept=true (antenna refresh --${what} ${id} --accept)`;
}

/** Why the text read for an M3U source is not a playlist, if it is not. */
export function playlistProblem(text: string, read: { channels: number; skipped: number }): string | undefined {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body === '')
    return text.length === 0 ? 'the playlist is empty (0 bytes)' : 'the playlist is empty (only blank space)';
  // What an IPTV provider or a captive portal sends with a 200 when the account has lapsed.
  if (body.startsWith('<'))
    return `it is a web page or other markup, not an M3U playlist (it begins ${JSON.stringify(body.slice(0, 40))})`;
  if (read.channels === 0 && (read.skipped > 0 || !/#EXTM3U|#EXTINF/i.test(body))) {
    return `it is not an M3U playlist (${read.skipped} ${read.skipped === 1 ? 'line' : 'lines'} could not be read)`;
  }
  return undefined;
}

export interface Judgement {
  kind: 'empty' | 'shrinks';
  /** What the refresh would do, for the user ("it lists no channels, where ..."). */
  detail: string;
}

const percent = (share: number) => `${Math.round(share * 100)} %`;

/** A few of many numbers: "4, 5, 6 and 7 more". */
function sample(numbers: readonly string[], shown = 5): string {
  return numbers.length <= shown
    ? numbers.join(', ')
    : `${numbers.slice(0, shown).join(', ')} and ${numbers.length - shown} more`;
}

/** A source's new lineup against the one it has (channel numbers); undefined: believable. */
export function judgeLineup(
  before: readonly string[],
  after: readonly string[],
  maxShare = MAX_REMOVED_SHARE,
): Judgement | undefined {
  if (before.length === 0) return undefined;
  if (after.length === 0)
    return { kind: 'empty', detail: `it lists no channels, where the last good refresh gave ${before.length}` };
  const kept = new Set(after);
  const gone = before.filter((number) => !kept.has(number));
  if (gone.length <= before.length * maxShare) return undefined;
  return {
    kind: 'shrinks',
    detail: `it would remove ${gone.length} of the ${before.length} channels (${sample(gone)}), more than ${percent(maxShare)} of them`,
  };
}

export interface GuideSize {
  /** Programmes in all (for the guide as it is: what the last good refresh read). */
  programmes: number;
  /** Programmes that have not ended yet. */
  upcoming: number;
}

/** A guide's new programmes against what it has; undefined: believable. */
export function judgeGuide(before: GuideSize, after: GuideSize, maxShare = MAX_REMOVED_SHARE): Judgement | undefined {
  if (before.programmes > 0 && after.programmes === 0) {
    return { kind: 'empty', detail: `it has no programmes, where the last good refresh gave ${before.programmes}` };
  }
  const gone = before.upcoming - after.upcoming;
  if (before.upcoming === 0 || gone <= before.upcoming * maxShare) return undefined;
  return {
    kind: 'shrinks',
    detail: `it has ${after.upcoming} programmes still to come where the guide has ${before.upcoming}: it would remove more than ${percent(maxShare)} of them`,
  };
}
