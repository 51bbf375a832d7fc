import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMSKIP_INI, comskipArgs, parseEdl } from '../../src/dvr/recording/comskip.js';

describe('comskipArgs', () => {
  it('names the settings, the output folder and a fixed output name, and keeps a dash-led input an input', () => {
    expect(comskipArgs('/rec/-odd name.ts', '/work/comskip-1', '/work/comskip-1/comskip.ini')).toEqual([
      '--ini=/work/comskip-1/comskip.ini',
      '--output=/work/comskip-1',
      '--output-filename=commercials',
      '--',
      '/rec/-odd name.ts',
    ]);
  });
});

describe('COMSKIP_INI', () => {
  it('asks for an EDL of cuts only, black frames and silence among the cut points, and no waiting for the file to grow', () => {
    const settings = new Map(
      COMSKIP_INI.split('\n')
        .filter((line) => line && !line.startsWith(';'))
        .map((line) => line.split('=') as [string, string]),
    );
    expect(settings.get('output_edl')).toBe('1');
    expect(settings.get('edl_skip_field')).toBe('0');
    const method = Number(settings.get('detect_method'));
    expect(method & 1).toBe(1);
    expect(method & 64).toBe(64);
    expect(settings.get('live_tv_retries')).toBe('0');
    expect(Number(settings.get('min_show_segment_length'))).toBeLessThanOrEqual(60);
  });
});

describe('parseEdl', () => {
  it("reads comskip's cut lines, sorted and rounded to hundredths", () => {
    expect(parseEdl('600.48\t720.44\t0\n65.48\t110.443\t0\n')).toEqual([65.48, 110.44, 600.48, 720.44]);
  });

  it('merges overlapping and touching breaks', () => {
    expect(parseEdl('10 20 0\n15 30 0\n30 40 0\n50 60 0\n55 58 0\n')).toEqual([10, 40, 50, 60]);
  });

  it('ignores other EDL actions and malformed lines', () => {
    const text = [
      '1 2 1', // mute
      '3 4 3', // commercial-break marker
      '5 6', // no action
      '7 8 0 extra',
      'abc 9 0',
      '9 abc 0',
      '-1 5 0',
      '12 11 0', // ends before it starts
      '13 13 0',
      '1e2 200 0',
      '0x10 20 0',
      'Infinity 30 0',
      '',
      '  40.5   41.25  0  ',
      '50\t60\t0\r',
    ].join('\n');
    expect(parseEdl(text)).toEqual([40.5, 41.25, 50, 60]);
  });

  it('drops a range that rounding makes empty', () => {
    expect(parseEdl('1.001 1.004 0\n')).toEqual([]);
  });

  it('reads back any set of separate ranges it is given, in any order', () => {
    const ranges = fc
      .uniqueArray(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 0, maxLength: 40 })
      .map((points) => {
        const sorted = [...points].sort((a, b) => a - b);
        const pairs: [number, number][] = [];
        for (let i = 0; i + 1 < sorted.length; i += 3) pairs.push([sorted[i]! / 100, sorted[i + 1]! / 100]);
        return pairs;
      });
    fc.assert(
      fc.property(ranges, fc.context(), (pairs, ctx) => {
        const shuffled = [...pairs].reverse();
        const text = shuffled.map(([s, e]) => `${s.toFixed(2)}\t${e.toFixed(2)}\t0`).join('\n');
        ctx.log(text);
        expect(parseEdl(text)).toEqual(pairs.flat());
      }),
    );
  });

  it('never throws and always answers ascending start/end pairs', () => {
    const line = fc.oneof(
      fc.string(),
      fc
        .tuple(fc.double({ noNaN: false }), fc.double(), fc.constantFrom('0', '1', '2', '3', ''))
        .map(([a, b, t]) => `${a} ${b} ${t}`),
      fc
        .tuple(fc.float({ min: 0, max: 10_000, noNaN: true }), fc.float({ min: 0, max: 10_000, noNaN: true }))
        .map(([a, b]) => `${a}\t${b}\t0`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
        const flat = parseEdl(lines.join(eol));
        expect(flat.length % 2).toBe(0);
        for (let i = 1; i < flat.length; i++) expect(flat[i]!).toBeGreaterThan(flat[i - 1]!);
        for (const value of flat) expect(Number.isFinite(value) && value >= 0).toBe(true);
      }),
    );
  });
});
