/**
 * XMLTV guide -> channels and programmes, as a stream (saxes underneath). This module
 * is the entry point; beside it: text-decoding.ts (bytes -> text), ampersand-repair.ts,
 * sax-reader.ts (events -> entries), field-parsers.ts (values), abortable-input.ts.
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
 * - Errors refusing the whole document are XmltvDocumentError (document-error.ts).
 * - Hopeless input throws "Not an XMLTV document: ...": nothing at all ("it is empty"),
 *   no root element, a root other than `<tv>`, or any well-formedness error before the
 *   root opens (text, binary, HTML prologue).
 * - A document cut short throws "XMLTV document cut short: ..." at the end of input:
 *   its `<tv>` never closed (a download that stopped mid-document), or the input ends
 *   inside a tag or comment. Entries are handed over as they close, before the end is
 *   known, so a consumer must not use them unless parseXmltv resolves (the DVR stages
 *   them and swaps them in only then).
 * - Between `<tv>` and `</tv>`, well-formedness errors never throw: saxes recovers and
 *   so do we. A channel/programme in which an error occurred (an undefined entity such
 *   as `&nbsp;`, a mismatched tag, ...) is dropped and counted once in `skipped`: saxes'
 *   recovery can fold markup into text, so its fields are suspect. An error outside
 *   any entry counts one in `skipped`.
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
import { abortable, abortError } from './abortable-input.js';
import { AmpersandRepair } from './ampersand-repair.js';
import { XmltvReader } from './sax-reader.js';
import { decodeXmltv } from './text-decoding.js';
import type { XmltvCounts, XmltvHandlers } from './xmltv.types.js';

export type { XmltvChannel, XmltvCounts, XmltvHandlers, XmltvProgramme } from './xmltv.types.js';
export { XmltvDocumentError, type XmltvDocumentProblem } from './document-error.js';

export async function parseXmltv(
  input: AsyncIterable<Buffer | string>,
  handlers: XmltvHandlers,
  options: { signal?: AbortSignal } = {},
): Promise<XmltvCounts> {
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const reader = new XmltvReader(handlers, signal);
  const ampersands = new AmpersandRepair();
  try {
    for await (const text of decodeXmltv(abortable(input, signal)[Symbol.asyncIterator]()))
      reader.write(ampersands.push(text));
    reader.write(ampersands.end());
  } catch (error) {
    // Whatever a stream threw while being torn down, an abort is reported as one.
    if (signal?.aborted) throw abortError(signal);
    throw error;
  }
  return reader.end();
}
