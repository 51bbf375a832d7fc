/** Reading bit fields of video and audio headers (elementary-stream.parser.ts, audio-frame.parser.ts). */

/**
 * Big-endian bits of an RBSP (emulation prevention already removed), with Exp-Golomb codes; reads past the end throw.
 */
export class Bits {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  bit(): number {
    const byte = this.bytes[this.at >> 3];
    if (byte === undefined) throw new RangeError('past the end');
    return (byte >> (7 - (this.at++ & 7))) & 1;
  }

  bits(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) value = value * 2 + this.bit();
    return value;
  }

  skip(count: number): void {
    for (let i = 0; i < count; i++) this.bit();
  }

  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) if (++zeros > 31) throw new RangeError('bad Exp-Golomb code');
    return 2 ** zeros - 1 + this.bits(zeros);
  }

  se(): number {
    const code = this.ue();
    return code % 2 === 1 ? (code + 1) / 2 : -code / 2;
  }
}
