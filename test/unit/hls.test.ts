/**
 * HLS's pure parts: which renditions a file or channel gets (and their RFC 6381
 * codecs), the playlists Antenna writes, ffmpeg's command lines, and ffprobe's answer
 * as the streaming code reads it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readStreamInfo } from '../../src/media-tools/stream-info.js';
import { fileHlsArgs, liveHlsArgs, videoEncoderArgs } from '../../src/streaming/hls-ffmpeg-args.js';
import { listedSegments, masterPlaylist, segmentCount, segmentIndex, segmentName, vodPlaylist } from '../../src/streaming/hls-playlists.js';
import { audioCodecString, chooseVariants, remuxCodecs, videoCodecString } from '../../src/streaming/hls-variants.js';

const h264 = { duration: 60, video: { codec: 'h264', profile: 'High', level: 40, width: 1920, height: 1080 }, audio: { codec: 'aac', profile: 'LC', channels: 2 } };
const broadcast = { duration: 1800, video: { codec: 'mpeg2video', profile: 'Main', level: 4, width: 1280, height: 720 }, audio: { codec: 'ac3', channels: 6 } };

describe('renditions', () => {
  it('writes RFC 6381 codec strings for what HLS carries as it is, and none for the rest', () => {
    expect(videoCodecString({ codec: 'h264', profile: 'High', level: 40, width: 0, height: 0 })).toBe('avc1.640028');
    expect(videoCodecString({ codec: 'h264', profile: 'Main', level: 31, width: 0, height: 0 })).toBe('avc1.4D401F');
    expect(videoCodecString({ codec: 'h264', profile: 'Constrained Baseline', level: 30, width: 0, height: 0 })).toBe('avc1.42E01E');
    expect(videoCodecString({ codec: 'hevc', profile: 'Main 10', level: 150, width: 0, height: 0 })).toBe('hvc1.2.4.L150.B0');
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
    expect(chooseVariants({ duration: 5, video: { codec: 'h264', width: 320, height: 240 } }).map((v) => v.name)).toEqual(['remux', '240p']);
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
        for (const v of variants.filter((x) => x.kind === 'transcode')) expect(v.height).toBeLessThanOrEqual(Math.max(144, Math.min(maxHeight, 1080)));
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
    expect(text).toContain('#EXT-X-STREAM-INF:BANDWIDTH=8000000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",NAME="remux"\ns/abc/remux/stream.m3u8');
    expect(text).toContain('s/abc/1080p/stream.m3u8');
  });

  it('reads a segment index from its name only', () => {
    expect(segmentIndex(segmentName(42))).toBe(42);
    for (const name of ['seg-1.ts/../x', '../seg-1.ts', 'seg-.ts', 'seg-1.mp4', 'seg-12345678.ts', 'SEG-1.ts']) expect(segmentIndex(name)).toBeUndefined();
    fc.assert(fc.property(fc.string(), (name) => {
      const index = segmentIndex(name);
      if (index !== undefined) expect(segmentName(index)).toBe(name.replace(/^seg-0+(?=\d)/, 'seg-'));
    }));
  });
});

describe('ffmpeg command lines', () => {
  const remux = chooseVariants(h264)[0]!;
  const p720 = chooseVariants(h264)[2]!;

  it('seeks to the first segment asked for and starts its times there', () => {
    const args = fileHlsArgs({ input: '/media/-odd name.mp4', variant: remux, startSegment: 5, segmentSeconds: 6, outDir: '/data/hls/s1/remux', encoder: 'software' });
    expect(args.slice(args.indexOf('-ss'), args.indexOf('-ss') + 2)).toEqual(['-ss', '30']);
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(args[args.indexOf('-i') + 1]).toBe('file:/media/-odd name.mp4');
    expect(args.slice(args.indexOf('-output_ts_offset'), args.indexOf('-output_ts_offset') + 2)).toEqual(['-output_ts_offset', '30']);
    expect(args).not.toContain('-copyts');
    expect(args.slice(args.indexOf('-c'), args.indexOf('-c') + 2)).toEqual(['-c', 'copy']);
    expect(args.slice(args.indexOf('-start_number'), args.indexOf('-start_number') + 2)).toEqual(['-start_number', '5']);
    expect(args).toContain('/data/hls/s1/remux/seg-%d.ts');
    expect(args.at(-1)).toBe('/data/hls/s1/remux/ffmpeg.m3u8');
    expect(fileHlsArgs({ input: '/a.ts', variant: remux, startSegment: 0, segmentSeconds: 6, outDir: '/o', encoder: 'software' })).not.toContain('-ss');
  });

  it('transcodes with a keyframe at every segment boundary, in software or a hardware encoder', () => {
    const args = fileHlsArgs({ input: '/a.ts', variant: p720, startSegment: 10, segmentSeconds: 6, outDir: '/o', encoder: 'software' });
    expect(args).toContain('libx264');
    expect(args).toContain('expr:gte(t,n_forced*6)');
    expect(args.slice(args.indexOf('-c:a'), args.indexOf('-c:a') + 2)).toEqual(['-c:a', 'aac']);
    expect(videoEncoderArgs(p720, 'vaapi')).toContain('h264_vaapi');
    expect(videoEncoderArgs(p720, 'nvenc')).toContain('h264_nvenc');
    expect(videoEncoderArgs(p720, 'qsv')).toContain('h264_qsv');
    const vaapi = fileHlsArgs({ input: '/a.ts', variant: p720, startSegment: 0, segmentSeconds: 6, outDir: '/o', encoder: 'vaapi' });
    expect(vaapi.indexOf('-vaapi_device')).toBeLessThan(vaapi.indexOf('-i'));
  });

  it('reads a growing recording to its end, and a channel from stdin into a sliding window', () => {
    const growing = fileHlsArgs({ input: '/r.ts', variant: remux, startSegment: 0, segmentSeconds: 6, outDir: '/o', encoder: 'software', growing: true });
    expect(growing.slice(growing.indexOf('-follow'), growing.indexOf('-follow') + 2)).toEqual(['-follow', '1']);
    expect(growing).toContain('event');
    // A finished file of unknown length: listed as made, but not waited on at its end.
    const unknown = fileHlsArgs({ input: '/r.mkv', variant: remux, startSegment: 0, segmentSeconds: 6, outDir: '/o', encoder: 'software', event: true });
    expect(unknown).toContain('event');
    expect(unknown).not.toContain('-follow');
    expect(fileHlsArgs({ input: '/r.mkv', variant: remux, startSegment: 0, segmentSeconds: 6, outDir: '/o', encoder: 'software' })).not.toContain('event');
    const live = liveHlsArgs({ variant: p720, segmentSeconds: 4, windowSegments: 6, outDir: '/o', encoder: 'software' });
    expect(live.slice(live.indexOf('-i'), live.indexOf('-i') + 2)).toEqual(['-i', 'pipe:0']);
    expect(live).toContain('delete_segments+temp_file+omit_endlist');
    expect(live).not.toContain('-nostdin');
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
    expect(info).toEqual({ duration: 61.5, video: { codec: 'h264', profile: 'High', level: 41, width: 1920, height: 1080 }, audio: { codec: 'ac3', channels: 6 } });
    expect(() => readStreamInfo('{"streams":[]}')).toThrow(/no audio or video/);
    expect(readStreamInfo('{"streams":[{"codec_type":"audio","codec_name":"aac"}]}').duration).toBeNull();
  });
});
