/**
 * HLS's pure parts: which renditions a file or channel gets (and their RFC 6381
 * codecs), the playlists Antenna writes (subtitle renditions too), the WebVTT header
 * that times subtitles, ffmpeg's command lines, and ffprobe's answer as the streaming
 * code reads it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readStreamInfo, type SubtitleStreamInfo } from '../../src/media-tools/stream-info.js';
import { MEDIA_DEMUXERS } from '../../src/media-tools/library-input.js';
import {
  FILE_TS_START_PTS,
  fileHlsArgs,
  bufferSegmentArgs,
  subtitleVttArgs,
  videoEncoderArgs,
} from '../../src/streaming/hls-ffmpeg-args.js';
import {
  languageTag,
  listedSegments,
  masterPlaylist,
  quotedStringSafe,
  segmentCount,
  segmentIndex,
  segmentName,
  subtitlePlaylist,
  subtitleRenditions,
  vodPlaylist,
  withTimestampMap,
} from '../../src/streaming/hls-playlists.js';
import { audioCodecString, chooseVariants, remuxCodecs, videoCodecString } from '../../src/streaming/hls-variants.js';

const h264 = {
  duration: 60,
  video: { codec: 'h264', profile: 'High', level: 40, width: 1920, height: 1080 },
  audio: { codec: 'aac', profile: 'LC', channels: 2 },
};
const broadcast = {
  duration: 1800,
  video: { codec: 'mpeg2video', profile: 'Main', level: 4, width: 1280, height: 720 },
  audio: { codec: 'ac3', channels: 6 },
};

describe('renditions', () => {
  it('writes RFC 6381 codec strings for what HLS carries as it is, and none for the rest', () => {
    expect(videoCodecString({ codec: 'h264', profile: 'High', level: 40, width: 0, height: 0 })).toBe('avc1.640028');
    expect(videoCodecString({ codec: 'h264', profile: 'Main', level: 31, width: 0, height: 0 })).toBe('avc1.4D401F');
    expect(videoCodecString({ codec: 'h264', profile: 'Constrained Baseline', level: 30, width: 0, height: 0 })).toBe(
      'avc1.42E01E',
    );
    expect(videoCodecString({ codec: 'hevc', profile: 'Main 10', level: 150, width: 0, height: 0 })).toBe(
      'hvc1.2.4.L150.B0',
    );
    expect(videoCodecString({ codec: 'mpeg2video', width: 0, height: 0 })).toBeUndefined();
    expect(audioCodecString('aac', 'LC')).toBe('mp4a.40.2');
    expect(audioCodecString('aac', 'HE-AAC')).toBe('mp4a.40.5');
    expect(audioCodecString('mp3')).toBe('mp4a.40.34');
    expect(audioCodecString('ac3')).toBe('ac-3');
    expect(audioCodecString('eac3')).toBe('ec-3');
    expect(audioCodecString('mp2')).toBeUndefined();
    expect(remuxCodecs(h264)).toBe('avc1.640028,mp4a.40.2');
    expect(remuxCodecs(broadcast)).toBeUndefined();
    expect(remuxCodecs({ duration: 10, video: h264.video, audio: { codec: 'mp2' } })).toBeUndefined();
  });

  it('offers remux when the codecs allow and transcodes no taller than the source', () => {
    expect(chooseVariants(h264).map((v) => v.name)).toEqual(['remux', '1080p', '720p', '480p', '360p']);
    expect(chooseVariants(broadcast).map((v) => v.name)).toEqual(['720p', '480p', '360p']);
    const [, p480] = chooseVariants(broadcast);
    expect(p480).toMatchObject({ kind: 'transcode', height: 480, width: 854, codecs: 'avc1.64001F,mp4a.40.2' });
    expect(
      chooseVariants({ duration: 5, video: { codec: 'h264', width: 320, height: 240 } }).map((v) => v.name),
    ).toEqual(['remux', '240p']);
    expect(chooseVariants({ duration: 5, audio: { codec: 'flac' } }).map((v) => v.name)).toEqual(['audio']);
  });

  it('keeps to encoder=remux, bitrate and max_height', () => {
    expect(chooseVariants(h264, { encoder: 'remux' }).map((v) => v.name)).toEqual(['remux']);
    expect(chooseVariants(broadcast, { encoder: 'remux' })).toEqual([]);
    expect(chooseVariants(h264, { maxHeight: 720 }).map((v) => v.name)).toEqual(['720p', '480p', '360p']);
    expect(chooseVariants(h264, { bitrate: 2000 }).map((v) => v.name)).toEqual(['480p', '360p']);
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 200_000 }), fc.integer({ min: 144, max: 4320 }), (bitrate, maxHeight) => {
        const variants = chooseVariants(h264, { bitrate, maxHeight });
        expect(variants.length).toBeGreaterThan(0);
        for (const v of variants.filter((x) => x.kind === 'transcode'))
          expect(v.height).toBeLessThanOrEqual(Math.max(144, Math.min(maxHeight, 1080)));
      }),
    );
  });
});

describe('playlists', () => {
  it('lists every segment of a file up front, the last one shorter', () => {
    const text = vodPlaylist(20);
    expect(text.startsWith('#EXTM3U\n')).toBe(true);
    expect(text).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(text.trimEnd().endsWith('#EXT-X-ENDLIST')).toBe(true);
    expect(listedSegments(text)).toEqual(['seg-0.ts', 'seg-1.ts', 'seg-2.ts', 'seg-3.ts']);
    expect(text).toContain('#EXTINF:2.000,\nseg-3.ts');
    expect(segmentCount(18)).toBe(3);
    expect(segmentCount(0)).toBe(1);
  });

  it('sums its segments to the duration, for any duration', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 50_000, noNaN: true }), (duration) => {
        const text = vodPlaylist(duration);
        const total = [...text.matchAll(/#EXTINF:([\d.]+),/g)].reduce((sum, m) => sum + Number(m[1]), 0);
        expect(Math.abs(total - duration)).toBeLessThan(0.01);
        expect(listedSegments(text)).toHaveLength(segmentCount(duration));
      }),
    );
  });

  it('names its variants in the master playlist with their codecs and sizes', () => {
    const text = masterPlaylist(chooseVariants(h264).slice(0, 2), 's/abc/');
    expect(text).toContain(
      '#EXT-X-STREAM-INF:BANDWIDTH=8000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",NAME="remux"\ns/abc/remux/stream.m3u8',
    );
    expect(text).toContain('s/abc/1080p/stream.m3u8');
  });

  it('writes the same master playlist as before for a file without subtitles', () => {
    const variants = chooseVariants(h264).slice(0, 2);
    expect(masterPlaylist(variants, 's/abc/', [])).toBe(masterPlaylist(variants, 's/abc/'));
    expect(masterPlaylist(variants, 's/abc/')).toBe(
      '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n' +
        '#EXT-X-STREAM-INF:BANDWIDTH=8000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",NAME="remux"\ns/abc/remux/stream.m3u8\n' +
        '#EXT-X-STREAM-INF:BANDWIDTH=6128000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",NAME="1080p"\ns/abc/1080p/stream.m3u8\n',
    );
  });

  it('offers text subtitles as SUBTITLES renditions that every variant names', () => {
    const subtitles: SubtitleStreamInfo[] = [
      { index: 1, codec: 'subrip', language: 'eng', title: 'English', default: false, forced: false },
      { index: 2, codec: 'ass', language: 'fre', default: true, forced: true },
      { index: 4, codec: 'mov_text', default: false, forced: false },
    ];
    const text = masterPlaylist(chooseVariants(h264).slice(0, 2), 's/abc/', subtitles);
    const media = text.split('\n').filter((line) => line.startsWith('#EXT-X-MEDIA:'));
    expect(media).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="s/abc/subs/1/stream.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="French (forced)",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,FORCED=YES,URI="s/abc/subs/2/stream.m3u8"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Subtitles 3",DEFAULT=NO,AUTOSELECT=NO,FORCED=NO,URI="s/abc/subs/4/stream.m3u8"',
    ]);
    const streams = text.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF:'));
    expect(streams).toHaveLength(2);
    for (const line of streams) expect(line.endsWith(',SUBTITLES="subs"')).toBe(true);
    // The renditions come before the variants that refer to them.
    expect(text.indexOf('#EXT-X-MEDIA:')).toBeLessThan(text.indexOf('#EXT-X-STREAM-INF:'));
    expect(text).toContain('#EXT-X-VERSION:3\n');
  });

  it('names subtitle renditions uniquely, by title, language or number', () => {
    const stream = (index: number, extra: Partial<SubtitleStreamInfo>): SubtitleStreamInfo => ({
      index,
      codec: 'subrip',
      default: false,
      forced: false,
      ...extra,
    });
    const names = subtitleRenditions([
      stream(0, { language: 'eng' }),
      stream(1, { language: 'eng' }),
      stream(2, { title: 'english' }),
      stream(3, { title: '"Director\'s\ncommentary"\r' }),
      stream(4, { title: '""' }),
      stream(5, { language: 'ger', title: '  ' }),
      stream(6, { language: 'xyz' }),
    ]).map((r) => [r.name, r.language]);
    expect(names).toEqual([
      ['English', 'en'],
      ['English 2', 'en'],
      ['english 3', undefined],
      ["Director's commentary", undefined],
      ['Subtitles 5', undefined],
      ['German', 'de'],
      ['Subtitles 7', 'xyz'],
    ]);
    expect(languageTag('und')).toBeUndefined();
    expect(languageTag('not a tag')).toBeUndefined();
    expect(languageTag('pt-br')).toBe('pt-BR');
    expect(quotedStringSafe('x'.repeat(500))).toHaveLength(80);
  });

  it('writes a valid attribute list for any title and language', () => {
    // RFC 8216 4.2: a quoted string has no double quote, carriage return or line feed.
    const attributeList =
      /^#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="[^"\r\n]+",(LANGUAGE="[A-Za-z0-9-]+",)?DEFAULT=NO,AUTOSELECT=(YES|NO),FORCED=(YES|NO),URI="s\/x\/subs\/\d+\/stream\.m3u8"$/;
    const subtitle = fc.record({
      title: fc.option(
        fc.string({
          unit: fc.constantFrom('a', 'é', '"', '\n', '\r', ',', '=', ' ', '\u0000', '字', '🎬'),
          maxLength: 120,
        }),
        { nil: undefined },
      ),
      language: fc.option(
        fc.oneof(fc.constantFrom('eng', 'fre', 'und', 'jpn', 'xx'), fc.stringMatching(/^[a-z]{2,3}$/)),
        { nil: undefined },
      ),
      forced: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(subtitle, { maxLength: 8 }), (list) => {
        const streams: SubtitleStreamInfo[] = list.map((s, index) => ({
          index,
          codec: 'subrip',
          default: false,
          ...(s.title === undefined ? {} : { title: s.title }),
          ...(s.language === undefined ? {} : { language: s.language }),
          forced: s.forced,
        }));
        const text = masterPlaylist(chooseVariants(h264).slice(0, 1), 's/x/', streams);
        const media = text.split('\n').filter((line) => line.startsWith('#EXT-X-MEDIA:'));
        expect(media).toHaveLength(streams.length);
        for (const line of media) expect(line).toMatch(attributeList);
        const names = media.map((line) => /NAME="([^"]*)"/.exec(line)?.[1]?.toLowerCase());
        expect(new Set(names).size).toBe(names.length);
        // Every line of the playlist is a tag or a URI: nothing a title held broke one apart.
        for (const line of text.trimEnd().split('\n'))
          expect(line.startsWith('#') || line.endsWith('/stream.m3u8')).toBe(true);
      }),
    );
  });

  it("lists a subtitle rendition's whole file as one segment", () => {
    expect(subtitlePlaylist(61.25)).toBe(
      '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:62\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:61.250,\nall.vtt\n#EXT-X-ENDLIST\n',
    );
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 50_000, noNaN: true }), (duration) => {
        const text = subtitlePlaylist(duration);
        const target = Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(text)?.[1]);
        const extinf = Number(/#EXTINF:([\d.]+),/.exec(text)?.[1]);
        // RFC 8216 4.3.3.1: each EXTINF, rounded to an integer, is at most the target duration.
        expect(Math.round(extinf)).toBeLessThanOrEqual(target);
        expect(Math.abs(extinf - duration)).toBeLessThan(0.001);
        expect(listedSegments(text)).toEqual(['all.vtt']);
      }),
    );
  });

  it('puts X-TIMESTAMP-MAP into a WebVTT header, replacing one there', () => {
    const map = 'X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000';
    const ffmpegVtt = 'WEBVTT\n\n00:02.000 --> 00:08.000\nHello\n';
    expect(withTimestampMap(ffmpegVtt, FILE_TS_START_PTS)).toBe(`WEBVTT\n${map}\n\n00:02.000 --> 00:08.000\nHello\n`);
    expect(
      withTimestampMap(
        '\uFEFFWEBVTT - a title\r\nKind: captions\r\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\r\n\r\n00:01.000 --> 00:02.000\r\nHi\r\n',
        126000,
      ),
    ).toBe(`WEBVTT - a title\n${map}\nKind: captions\n\n00:01.000 --> 00:02.000\nHi\n`);
    // A cue line that happens to look like the header's is the cue's own.
    expect(withTimestampMap('WEBVTT\n\nX-TIMESTAMP-MAP=kept\n', 126000)).toBe(
      `WEBVTT\n${map}\n\nX-TIMESTAMP-MAP=kept\n`,
    );
    expect(withTimestampMap('WEBVTT', 126000)).toBe(`WEBVTT\n${map}`);
    expect(withTimestampMap('', 126000).startsWith(`WEBVTT\n${map}\n\n`)).toBe(true);
    expect(FILE_TS_START_PTS).toBe(126_000);
  });

  it('reads a segment index from its name only', () => {
    expect(segmentIndex(segmentName(42))).toBe(42);
    for (const name of ['seg-1.ts/../x', '../seg-1.ts', 'seg-.ts', 'seg-1.mp4', 'seg-12345678.ts', 'SEG-1.ts'])
      expect(segmentIndex(name)).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (name) => {
        const index = segmentIndex(name);
        if (index !== undefined) expect(segmentName(index)).toBe(name.replace(/^seg-0+(?=\d)/, 'seg-'));
      }),
    );
  });
});

describe('ffmpeg command lines', () => {
  const remux = chooseVariants(h264)[0]!;
  const p720 = chooseVariants(h264)[2]!;

  it('seeks to the first segment asked for and starts its times there', () => {
    const args = fileHlsArgs({
      input: '/media/-odd name.mp4',
      variant: remux,
      startSegment: 5,
      segmentSeconds: 6,
      outDir: '/data/hls/s1/remux',
      encoder: 'software',
    });
    expect(args.slice(args.indexOf('-ss'), args.indexOf('-ss') + 2)).toEqual(['-ss', '30']);
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(args[args.indexOf('-i') + 1]).toBe('file:/media/-odd name.mp4');
    // Only the file protocol and demuxers that follow no references (a playlist named .mp4 is refused), before the
    // input.
    expect(args.slice(args.indexOf('-protocol_whitelist'), args.indexOf('-protocol_whitelist') + 4)).toEqual([
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      MEDIA_DEMUXERS.join(','),
    ]);
    expect(args.indexOf('-format_whitelist')).toBeLessThan(args.indexOf('-i'));
    expect(args.slice(args.indexOf('-output_ts_offset'), args.indexOf('-output_ts_offset') + 2)).toEqual([
      '-output_ts_offset',
      '30',
    ]);
    expect(args).not.toContain('-copyts');
    expect(args.slice(args.indexOf('-c'), args.indexOf('-c') + 2)).toEqual(['-c', 'copy']);
    expect(args.slice(args.indexOf('-start_number'), args.indexOf('-start_number') + 2)).toEqual([
      '-start_number',
      '5',
    ]);
    expect(args).toContain('/data/hls/s1/remux/seg-%d.ts');
    expect(args.at(-1)).toBe('/data/hls/s1/remux/ffmpeg.m3u8');
    expect(
      fileHlsArgs({
        input: '/a.ts',
        variant: remux,
        startSegment: 0,
        segmentSeconds: 6,
        outDir: '/o',
        encoder: 'software',
      }),
    ).not.toContain('-ss');
  });

  it('transcodes with a keyframe at every segment boundary, in software or a hardware encoder', () => {
    const args = fileHlsArgs({
      input: '/a.ts',
      variant: p720,
      startSegment: 10,
      segmentSeconds: 6,
      outDir: '/o',
      encoder: 'software',
    });
    expect(args).toContain('libx264');
    expect(args).toContain('expr:gte(t,n_forced*6)');
    expect(args.slice(args.indexOf('-c:a'), args.indexOf('-c:a') + 2)).toEqual(['-c:a', 'aac']);
    expect(videoEncoderArgs(p720, 'vaapi')).toContain('h264_vaapi');
    expect(videoEncoderArgs(p720, 'nvenc')).toContain('h264_nvenc');
    expect(videoEncoderArgs(p720, 'qsv')).toContain('h264_qsv');
    const vaapi = fileHlsArgs({
      input: '/a.ts',
      variant: p720,
      startSegment: 0,
      segmentSeconds: 6,
      outDir: '/o',
      encoder: 'vaapi',
    });
    expect(vaapi.indexOf('-vaapi_device')).toBeLessThan(vaapi.indexOf('-i'));
  });

  it('turns one subtitle stream of a file into WebVTT', () => {
    expect(
      subtitleVttArgs({ input: '/media/-odd.mkv', subtitleIndex: 2, output: '/data/hls/s1/subs-2.ffmpeg.vtt' }),
    ).toEqual([
      '-hide_banner',
      '-nostats',
      '-nostdin',
      '-loglevel',
      'warning',
      '-y',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      MEDIA_DEMUXERS.join(','),
      '-i',
      'file:/media/-odd.mkv',
      '-map',
      '0:s:2',
      '-c:s',
      'webvtt',
      '-f',
      'webvtt',
      '/data/hls/s1/subs-2.ffmpeg.vtt',
    ]);
  });

  it('moves no timestamps from where the MPEG-TS muxer starts them (subtitles are timed by it)', () => {
    for (const variant of [remux, p720]) {
      for (const startSegment of [0, 3]) {
        const args = fileHlsArgs({
          input: '/a.mkv',
          variant,
          startSegment,
          segmentSeconds: 6,
          outDir: '/o',
          encoder: 'software',
        });
        for (const moved of ['-copyts', '-muxdelay', '-muxpreload', '-start_at_zero'])
          expect(args).not.toContain(moved);
        // Only a seek moves them, to the segment's own place in the file.
        const offset = args.indexOf('-output_ts_offset');
        expect(offset === -1 ? 0 : Number(args[offset + 1])).toBe(startSegment * 6);
      }
    }
  });

  it('reads a growing recording to its end, and transcodes a live buffer segment from stdin at its own times', () => {
    const growing = fileHlsArgs({
      input: '/r.ts',
      variant: remux,
      startSegment: 0,
      segmentSeconds: 6,
      outDir: '/o',
      encoder: 'software',
      growing: true,
    });
    expect(growing.slice(growing.indexOf('-follow'), growing.indexOf('-follow') + 2)).toEqual(['-follow', '1']);
    expect(growing).toContain('event');
    // A finished file of unknown length: listed as made, but not waited on at its end.
    const unknown = fileHlsArgs({
      input: '/r.mkv',
      variant: remux,
      startSegment: 0,
      segmentSeconds: 6,
      outDir: '/o',
      encoder: 'software',
      event: true,
    });
    expect(unknown).toContain('event');
    expect(unknown).not.toContain('-follow');
    expect(
      fileHlsArgs({
        input: '/r.mkv',
        variant: remux,
        startSegment: 0,
        segmentSeconds: 6,
        outDir: '/o',
        encoder: 'software',
      }),
    ).not.toContain('event');
    const segment = bufferSegmentArgs({ variant: p720, encoder: 'software', output: '/o/seg-9.ts.partial' });
    // The buffer's segment on stdin, its timestamps kept (the transcodes of a buffer follow each other), one file out.
    expect(segment.slice(segment.indexOf('-i'), segment.indexOf('-i') + 2)).toEqual(['-i', 'pipe:0']);
    expect(segment.indexOf('-copyts')).toBeLessThan(segment.indexOf('-i'));
    expect(segment.slice(segment.indexOf('-muxdelay'), segment.indexOf('-muxdelay') + 4)).toEqual([
      '-muxdelay',
      '0',
      '-muxpreload',
      '0',
    ]);
    expect(segment).toContain('libx264');
    expect(segment).not.toContain('-force_key_frames');
    expect(segment).not.toContain('-nostdin');
    expect(segment.at(-1)).toBe('/o/seg-9.ts.partial');
    expect(segment.slice(-3, -1)).toEqual(['-f', 'mpegts']);
    const vaapi = bufferSegmentArgs({ variant: p720, encoder: 'vaapi', output: '/o/x' });
    expect(vaapi.indexOf('-vaapi_device')).toBeLessThan(vaapi.indexOf('-i'));
  });
});

describe("ffprobe's answer", () => {
  it('takes the first real video and audio streams, skipping cover art', () => {
    const info = readStreamInfo(
      JSON.stringify({
        format: { duration: '61.5' },
        streams: [
          { codec_type: 'video', codec_name: 'mjpeg', disposition: { attached_pic: 1 } },
          { codec_type: 'video', codec_name: 'h264', profile: 'High', level: 41, width: 1920, height: 1080 },
          { codec_type: 'audio', codec_name: 'ac3', channels: 6 },
        ],
      }),
    );
    expect(info).toEqual({
      duration: 61.5,
      video: { codec: 'h264', profile: 'High', level: 41, width: 1920, height: 1080 },
      audio: { codec: 'ac3', channels: 6 },
    });
    expect(info.subtitles).toBeUndefined();
    expect(() => readStreamInfo('{"streams":[]}')).toThrow(/no audio or video/);
    expect(readStreamInfo('{"streams":[{"codec_type":"audio","codec_name":"aac"}]}').duration).toBeNull();
  });

  it('lists the text subtitle streams, numbered among all subtitle streams, and skips bitmap ones', () => {
    const info = readStreamInfo(
      JSON.stringify({
        format: { duration: '20' },
        streams: [
          { codec_type: 'video', codec_name: 'h264', width: 320, height: 240 },
          { codec_type: 'audio', codec_name: 'aac' },
          { codec_type: 'subtitle', codec_name: 'hdmv_pgs_subtitle', tags: { language: 'eng' } },
          {
            codec_type: 'subtitle',
            codec_name: 'subrip',
            disposition: { default: 1, forced: 0 },
            tags: { language: 'eng', title: ' English ' },
          },
          { codec_type: 'attachment', codec_name: 'ttf' },
          { codec_type: 'subtitle', codec_name: 'dvd_subtitle' },
          {
            codec_type: 'subtitle',
            codec_name: 'ass',
            disposition: { default: 0, forced: 1 },
            tags: { language: 'fre', title: '' },
          },
          { codec_type: 'subtitle', codec_name: 'webvtt', tags: { language: 'und' } },
          { codec_type: 'subtitle', codec_name: 'mov_text', tags: { LANGUAGE: 'ger', language: 'not a language' } },
          { codec_type: 'subtitle', codec_name: 'dvb_subtitle' },
          { codec_type: 'subtitle' },
          { codec_type: 'subtitle', codec_name: 'ssa', tags: { title: 42 } },
        ],
      }),
    );
    expect(info.video?.codec).toBe('h264');
    expect(info.subtitles).toEqual([
      { index: 1, codec: 'subrip', language: 'eng', title: 'English', default: true, forced: false },
      { index: 3, codec: 'ass', language: 'fre', default: false, forced: true },
      { index: 4, codec: 'webvtt', default: false, forced: false },
      { index: 5, codec: 'mov_text', default: false, forced: false },
      { index: 8, codec: 'ssa', default: false, forced: false },
    ]);
    const onlyBitmap = readStreamInfo(
      '{"streams":[{"codec_type":"audio","codec_name":"aac"},{"codec_type":"subtitle","codec_name":"hdmv_pgs_subtitle"}]}',
    );
    expect(onlyBitmap.subtitles).toBeUndefined();
  });
});
