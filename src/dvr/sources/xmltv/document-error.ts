/**
 * Why an XMLTV document was refused as a whole, so a caller can tell "this is not a
 * guide" and "this guide was cut short" from a failed download or a database error.
 * The message is for the user and starts with what it is ("Not an XMLTV document: ...",
 * "XMLTV document refused: ...", "XMLTV document cut short: ...").
 */
export type XmltvDocumentProblem = 'not_xmltv' | 'refused' | 'incomplete';

export class XmltvDocumentError extends Error {
  override readonly name = 'XmltvDocumentError';
  constructor(
    message: string,
    readonly problem: XmltvDocumentProblem,
  ) {
    super(message);
  }
}
