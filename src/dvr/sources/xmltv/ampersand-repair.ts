/** Bare "&" in hand-made guides, repaired before saxes sees them (it would swallow text up to the next ";"). */
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
export class AmpersandRepair {
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
