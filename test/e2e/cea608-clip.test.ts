/**
 * The captioned clip (test/support/cea608-clip.ts) really carries CEA-608 captions: its
 * pure parts are right, ffprobe sees closed captions in the video, ffmpeg's caption
 * decoder reads the text back, and hls.js in Debian's headless Chromium (puppeteer-core)
 * turns them into a captions text track with cues of the text, as a viewer would see.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCaptions,
  addEmulationPrevention,
  CC1,
  type CaptionedClip,
  captionCycle,
  ccDataPayload,
  insertBeforePictures,
  isFirstSlice,
  joinAnnexB,
  makeCaptionedTsClip,
  NULL_PAIR,
  oddParity,
  seiNalUnit,
  splitAnnexB,
  textPairs,
} from '../support/cea608-clip.js';
import { tsByteRate } from '../support/ts-stream-server.js';

const run = promisify(execFile);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HLS_JS = createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');
const TEXT = 'HELLO ANTENNA';
const bytes = (...values: number[]) => Uint8Array.from(values);

describe('CEA-608 byte pairs', () => {
  it('sets the parity bit so every byte has an odd number of ones', () => {
    expect(oddParity(0x14)).toBe(0x94);
    expect(oddParity(0x20)).toBe(0x20);
    expect(oddParity(0x2c)).toBe(0x2c);
    expect(oddParity(0x00)).toBe(0x80);
    expect(oddParity(0x7f)).toBe(0x7f);
    expect(oddParity(0x41)).toBe(0xc1);
    // Bit 7 of the input is replaced, not kept.
    expect(oddParity(0x94)).toBe(0x94);
    for (let value = 0; value < 0x80; value += 1) {
      const byte = oddParity(value);
      expect(byte & 0x7f).toBe(value);
      expect(
        byte
          .toString(2)
          .split('')
          .filter((bit) => bit === '1').length % 2,
      ).toBe(1);
    }
  });

  it('pairs the text two characters at a time, padding the last with a null', () => {
    expect(textPairs('HI!')).toEqual([
      [0xc8, 0x49],
      [0xa1, 0x80],
    ]);
    expect(textPairs('Ñ á')).toEqual([
      [0xfd, 0x20],
      [0x2a, 0x80],
    ]);
    expect(() => textPairs('')).toThrow();
    expect(() => textPairs('x'.repeat(33))).toThrow();
    expect(() => textPairs('a*b')).toThrow(/basic characters/);
  });

  it('sends one repetition as doubled control codes, the text, then nulls', () => {
    const cycle = captionCycle('AB', 12);
    expect(cycle).toHaveLength(12);
    expect(cycle.slice(0, 8)).toEqual([
      CC1.EDM,
      CC1.EDM,
      CC1.RU2,
      CC1.RU2,
      CC1.CR,
      CC1.CR,
      CC1.PAC_ROW15,
      CC1.PAC_ROW15,
    ]);
    expect(CC1.RU2).toEqual([0x94, 0x25]);
    expect(CC1.CR).toEqual([0x94, 0xad]);
    expect(CC1.EDM).toEqual([0x94, 0x2c]);
    expect(CC1.PAC_ROW15).toEqual([0x94, 0xe0]);
    expect(cycle[8]).toEqual([0xc1, 0xc2]);
    expect(cycle.slice(9)).toEqual([NULL_PAIR, NULL_PAIR, NULL_PAIR]);
    expect(() => captionCycle(TEXT, 10)).toThrow(/frames/);
  });
});

describe('A/53 caption SEI', () => {
  it('wraps a field 1 pair as ATSC user data (GA94, cc_data) with an empty field 2 pair', () => {
    expect([...ccDataPayload([0x94, 0x25])]).toEqual([
      0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0x42, 0xff, 0xfc, 0x94, 0x25, 0xfd, 0x80, 0x80, 0xff,
    ]);
  });

  it('inserts an emulation prevention byte after 00 00 before 00, 01, 02 or 03', () => {
    expect([...addEmulationPrevention(bytes(0, 0, 0))]).toEqual([0, 0, 3, 0, 3]);
    expect([...addEmulationPrevention(bytes(0, 0, 1))]).toEqual([0, 0, 3, 1]);
    expect([...addEmulationPrevention(bytes(0, 0, 2, 0, 0, 3))]).toEqual([0, 0, 3, 2, 0, 0, 3, 3]);
    expect([...addEmulationPrevention(bytes(0, 0, 4, 0, 1))]).toEqual([0, 0, 4, 0, 1]);
    expect([...addEmulationPrevention(bytes(0, 0, 0, 0, 0, 0))]).toEqual([0, 0, 3, 0, 0, 3, 0, 0, 3]);
    expect([...addEmulationPrevention(bytes(1, 0, 2, 0x80))]).toEqual([1, 0, 2, 0x80]);
  });

  it('makes an SEI NAL unit: type 6, payload type 4, size, payload, trailing bits', () => {
    const payload = ccDataPayload(NULL_PAIR);
    expect([...seiNalUnit(payload)]).toEqual([0x06, 0x04, payload.length, ...payload, 0x80]);
    // Sizes of 255 and more are coded as 0xff runs; zeros in the payload are escaped.
    const long = seiNalUnit(new Uint8Array(300).fill(7), 5);
    expect([...long.subarray(0, 5)]).toEqual([0x06, 0x05, 0xff, 300 - 255, 7]);
    expect([...seiNalUnit(bytes(0, 0, 1))]).toEqual([0x06, 0x04, 0x03, 0, 0, 3, 1, 0x80]);
  });
});

describe('Annex B NAL units', () => {
  const aud = bytes(0x09, 0xf0);
  const idrFirst = bytes(0x65, 0x88, 0x84);
  const sliceFirst = bytes(0x41, 0x9a, 0x02);
  const sliceLater = bytes(0x41, 0x40, 0x01);

  it('splits on 3- and 4-byte start codes and joins again', () => {
    const stream = bytes(0, 0, 0, 1, 0x09, 0xf0, 0, 0, 1, 0x65, 0x88, 0x84, 0, 0, 0, 0, 1, 0x41, 0x9a, 0x02);
    const units = splitAnnexB(stream);
    expect(units.map((unit) => [...unit])).toEqual([[...aud], [...idrFirst], [...sliceFirst]]);
    expect(splitAnnexB(joinAnnexB(units)).map((unit) => [...unit])).toEqual(units.map((unit) => [...unit]));
  });

  it('finds the first slice of each picture and puts the SEI just before it', () => {
    expect([aud, idrFirst, sliceFirst, sliceLater].map(isFirstSlice)).toEqual([false, true, true, false]);
    const sps = bytes(0x67, 0x42);
    const inserted = insertBeforePictures([aud, sps, idrFirst, sliceLater, aud, sliceFirst], (n) => bytes(0x06, n));
    expect(inserted.map((unit) => [...unit])).toEqual([
      [...aud],
      [...sps],
      [0x06, 0],
      [...idrFirst],
      [...sliceLater],
      [...aud],
      [0x06, 1],
      [...sliceFirst],
    ]);
  });

  it('repeats the caption cycle over the pictures', () => {
    const pictures = Array.from({ length: 5 }, () => [aud, sliceFirst]).flat();
    const out = splitAnnexB(addCaptions(joinAnnexB(pictures), 'A', 9));
    const seis = out.filter((unit) => unit[0] === 0x06);
    expect(seis).toHaveLength(5);
    // The field 1 pair follows the NAL header, payload type and size, and 11 bytes of the payload (see ccDataPayload).
    const field1 = seis.map((sei) => [sei[14], sei[15]]);
    expect(field1).toEqual([CC1.EDM, CC1.EDM, CC1.RU2, CC1.RU2, CC1.CR].map((p) => [...p]));
  });
});

describe('a captioned MPEG-TS clip', () => {
  let dir: string;
  let clip: CaptionedClip;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'antenna-cea608-test-'));
    clip = await makeCaptionedTsClip(join(dir, 'clip.ts'), { seconds: 8, text: TEXT });
  }, 60_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is a constant-rate transport stream', () => {
    expect(clip.text).toBe(TEXT);
    expect(clip.bytes % 188).toBe(0);
    // Its PCRs run at the mux rate (2000 kbit/s), so the stream server paces it in real time.
    expect(tsByteRate(readFileSync(clip.path)) / 250_000).toBeCloseTo(1, 2);
    // At the mux rate the bytes last about as long as the clip plays.
    expect(clip.seconds).toBeGreaterThan(7);
    expect(clip.seconds).toBeLessThan(10);
  });

  it('has closed captions in its video stream, as ffprobe sees it', async () => {
    // ffprobe 5.1 reports closed_captions from its own decoder, which decodes only when asked to count or show frames.
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-show_streams',
      '-select_streams',
      'v',
      clip.path,
    ]);
    expect(stdout).toContain('codec_name=h264');
    expect(stdout).toContain('closed_captions=1');
  }, 30_000);

  it("gives back the text through ffmpeg's caption decoder", async () => {
    // lavfi's movie source reads the file; a plain name in cwd needs no filter-graph escaping.
    const { stdout } = await run(
      'ffmpeg',
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostdin',
        '-f',
        'lavfi',
        '-i',
        'movie=clip.ts[out0+subcc]',
        '-map',
        '0:1',
        '-f',
        'srt',
        '-',
      ],
      { cwd: dir },
    );
    expect(stdout).toContain(TEXT);
    // Each repetition's erase ends the cue before: an 8 s clip (four repetitions) gives at least three.
    expect(stdout.split(TEXT).length - 1).toBeGreaterThanOrEqual(3);
  }, 30_000);

  describe('in Chromium with hls.js', () => {
    let server: Server;
    let browser: Browser;
    let pageUrl: string;

    beforeAll(async () => {
      const hlsDir = join(dir, 'hls');
      mkdirSync(hlsDir);
      await run('ffmpeg', [
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostdin',
        '-i',
        clip.path,
        '-c',
        'copy',
        '-f',
        'hls',
        '-hls_time',
        '2',
        '-hls_playlist_type',
        'vod',
        '-hls_segment_filename',
        join(hlsDir, 'segment-%d.ts'),
        join(hlsDir, 'index.m3u8'),
      ]);
      server = servePlayer(hlsDir);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      pageUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      server?.close();
    });

    it('shows the captions as a captions text track with cues of the text', async () => {
      const page = await browser.newPage();
      await page.goto(pageUrl);
      await page.evaluate(startPlayer, 'hls/index.m3u8');
      // hls.js makes the track with its first cue, which ends when the screen next changes (the next repetition's
      // erase);
      // it reads the captions as it loads segments, ahead of playback.
      await page.waitForFunction(captionCue, { timeout: 15_000, polling: 100 }, TEXT, false);
      // And the cue is on screen while the video plays through it.
      await page.waitForFunction(captionCue, { timeout: 15_000, polling: 100 }, TEXT, true);
      const seen = await page.evaluate(captionTracks);
      await page.close();
      expect(seen.fatal).toEqual([]);
      expect(seen.tracks).toHaveLength(1);
      const [track] = seen.tracks;
      expect(track).toMatchObject({ kind: 'captions', label: 'English', language: 'en', mode: 'showing' });
      expect(track?.cues.length).toBeGreaterThanOrEqual(2);
      for (const cue of track?.cues ?? []) expect(cue.text).toBe(TEXT);
      // One cue per repetition, in the pictures' time: the first within the first second, the next 2 s later.
      const [first, second] = track?.cues ?? [];
      expect(first?.start).toBeLessThan(1);
      expect((second?.start ?? 0) - (first?.start ?? 0)).toBeCloseTo(2, 1);
    }, 60_000);
  });
});

/** The playlist, its segments, hls.js, and a blank page to play them in. */
function servePlayer(hlsDir: string): Server {
  const hlsJs = readFileSync(HLS_JS);
  return createServer((request, response) => {
    const url = request.url ?? '/';
    const file = /^\/hls\/([\w-]+\.(m3u8|ts))$/.exec(url);
    if (url === '/hls.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(hlsJs);
    else if (file?.[1]) {
      const type = file[2] === 'm3u8' ? 'application/vnd.apple.mpegurl' : 'video/mp2t';
      try {
        response.writeHead(200, { 'content-type': type }).end(readFileSync(join(hlsDir, file[1])));
      } catch {
        response.writeHead(404).end();
      }
    } else if (url === '/')
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>captions</title><script src="/hls.js"></script><body></body>');
    else response.writeHead(404).end();
  });
}

// The functions below run in the page; its globals are typed here without the DOM library in the project's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the DOM and hls.js, untyped in this project
type Untyped = any;
interface PageGlobals {
  document: {
    createElement(tag: string): Untyped;
    body: { append(node: unknown): void };
    querySelector(selector: string): Untyped;
  };
  Hls: Untyped;
  fatal: string[];
}

/** Plays `url` with hls.js in its default configuration (CEA-608/708 captions on); fatal errors go to `fatal`. */
function startPlayer(url: string): void {
  const page = globalThis as unknown as PageGlobals;
  const video = page.document.createElement('video');
  video.muted = true;
  page.document.body.append(video);
  const Hls = page.Hls;
  const hls = new Hls();
  page.fatal = [];
  hls.on(
    Hls.Events.ERROR,
    (_event: unknown, data: { fatal: boolean; details: string }) => data.fatal && page.fatal.push(data.details),
  );
  hls.on(Hls.Events.MANIFEST_PARSED, () => video.play());
  hls.loadSource(url);
  hls.attachMedia(video);
}

/**
 * Whether a captions track has a cue containing `text` (with `active`, one on screen now).
 * Shows every captions track first: a disabled track's cues cannot be read.
 */
function captionCue(text: string, active: boolean): boolean {
  const video = (globalThis as unknown as PageGlobals).document.querySelector('video');
  const tracks: Untyped[] = video ? [...video.textTracks] : [];
  return tracks.some((track) => {
    if (track.kind !== 'captions') return false;
    if (track.mode !== 'showing') track.mode = 'showing';
    return [...((active ? track.activeCues : track.cues) ?? [])].some((cue: { text: string }) =>
      cue.text.includes(text),
    );
  });
}

interface SeenTrack {
  kind: string;
  label: string;
  language: string;
  mode: string;
  cues: { text: string; start: number; end: number }[];
}

/** The video's text tracks and their cues, and hls.js's fatal errors. */
function captionTracks(): { fatal: string[]; tracks: SeenTrack[] } {
  const page = globalThis as unknown as PageGlobals;
  const video = page.document.querySelector('video');
  const tracks: Untyped[] = [...video.textTracks];
  return {
    fatal: page.fatal,
    tracks: tracks.map((track) => ({
      kind: track.kind,
      label: track.label,
      language: track.language,
      mode: track.mode,
      cues: [...(track.cues ?? [])].map((cue: { text: string; startTime: number; endTime: number }) => ({
        text: cue.text,
        start: cue.startTime,
        end: cue.endTime,
      })),
    })),
  };
}
