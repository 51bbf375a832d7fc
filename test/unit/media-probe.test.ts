import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ffprobeArgs, readProbeOutput } from '../../src/media-tools/media-probe.js';
import { MEDIA_DEMUXERS } from '../../src/media-tools/library-input.js';

const output = (streams: object[], extra: object = {}) =>
  JSON.stringify({ streams, format: { duration: '61.44' }, ...extra });

describe('ffprobeArgs', () => {
  it("asks for JSON format, streams and chapters, keeps ffprobe to the file's own media, and names the file as a file", () => {
    expect(ffprobeArgs('/media/-odd name.mkv')).toEqual([
      '-v',
      'error',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      MEDIA_DEMUXERS.join(','),
      '-print_format',
      'json',
      '-show_format',
      '-show_streams',
      '-show_chapters',
      'file:/media/-odd name.mkv',
    ]);
  });

  it('reads a library file as the descriptor it was given', () => {
    expect(ffprobeArgs().at(-1)).toBe('file:/dev/fd/3');
  });
});

describe('readProbeOutput', () => {
  it.each([
    [480, 'SD'],
    [576, 'SD'],
    [720, 'HD'],
    [1080, 'HD'],
    [2160, '4K'],
  ])('a %i-line picture is %s', (height, tag) => {
    expect(readProbeOutput(output([{ codec_type: 'video', codec_name: 'h264', height }])).tags).toEqual([tag]);
  });

  it('tags closed captions, Dolby Digital (Plus) and 5.1', () => {
    const probe = readProbeOutput(
      output([
        { codec_type: 'video', codec_name: 'h264', height: 1080, closed_captions: 1 },
        { codec_type: 'audio', codec_name: 'ac3', channels: 6 },
      ]),
    );
    expect(probe.tags).toEqual(['HD', 'CC', 'Dolby Digital', '5.1']);
    expect(
      readProbeOutput(
        output([
          { codec_type: 'audio', codec_name: 'eac3', channels: 2 },
          { codec_type: 'audio', codec_name: 'ac3' },
        ]),
      ).tags,
    ).toEqual(['Dolby Digital Plus']);
  });

  it('ignores cover art when it reads the picture height', () => {
    expect(
      readProbeOutput(
        output([
          { codec_type: 'video', codec_name: 'mjpeg', height: 3000 },
          { codec_type: 'audio', codec_name: 'aac' },
        ]),
      ).tags,
    ).toEqual([]);
  });

  it('reads the duration in seconds and the chapters', () => {
    const probe = readProbeOutput(
      output([{ codec_type: 'video', codec_name: 'h264', height: 480 }], {
        chapters: [
          { start_time: '0.000000', end_time: '30.5', tags: { title: 'Intro' } },
          { start_time: '30.5', end_time: '61.44' },
          { start_time: 'bad', end_time: '1' },
        ],
      }),
    );
    expect(probe.duration).toBe(61.44);
    expect(probe.chapters).toEqual([
      { start: 0, end: 30.5, title: 'Intro' },
      { start: 30.5, end: 61.44 },
    ]);
  });

  it('refuses output without audio or video', () => {
    expect(() => readProbeOutput(JSON.stringify({ streams: [{ codec_type: 'data' }] }))).toThrow(/no audio or video/);
    expect(() => readProbeOutput('not json')).toThrow();
  });

  it('never answers a negative or non-finite duration, whatever ffprobe says', () => {
    fc.assert(
      fc.property(fc.string(), (duration) => {
        const probe = readProbeOutput(JSON.stringify({ streams: [{ codec_type: 'audio' }], format: { duration } }));
        expect(probe.duration === null || (Number.isFinite(probe.duration) && probe.duration >= 0)).toBe(true);
      }),
    );
  });
});

describe('probeFile', () => {
  it('calls a failure to run ffprobe transient, not the file corrupted', async () => {
    const { probeFile } = await import('../../src/media-tools/media-probe.js');
    const outcome = await probeFile({ fd: 0 }, '/nonexistent/ffprobe');
    expect(outcome).toMatchObject({ ok: false, transient: true });
  });
});
