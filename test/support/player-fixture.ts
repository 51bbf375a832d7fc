/**
 * A real library and DVR for player tests: media made with ffmpeg (an episode, a movie
 * with chapters, a video with a subtitle track), MPEG-TS channels served on loopback
 * through an M3U playlist, an XMLTV guide with a programme on now, and a helper that
 * reads mpv's own properties through its IPC socket (not through the player's client).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { clipArgs } from './media-tree.js';
import { makeCaptionedTsClip } from './cea608-clip.js';
import { type StreamServer, makeTsClip, startStreamServer } from './ts-stream-server.js';
import { writeM3u, writeXmltv } from './dvr-app.js';
import { tempDir } from './temp-library.js';

export interface PlayerMedia {
  dir: string;
  roots: { tv: string; movies: string; videos: string };
  m3u: string;
  xmltv: string;
  streams: StreamServer;
  /** Channel numbers in the playlist, in number order. */
  channels: string[];
  close(): Promise<void>;
}

const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

/** A clip of `seconds` at a size and rate that decode fast. */
function clip(out: string, seconds: number): void {
  mkdirSync(join(out, '..'), { recursive: true });
  ffmpeg(clipArgs(out, { seconds, width: 160, height: 120 }).slice(4));
}

/** `captions`: the channels' stream carries CEA-608 captions with this text (as broadcasts do). */
export async function makePlayerMedia(
  options: { episodeSeconds?: number; captions?: string } = {},
): Promise<PlayerMedia> {
  const dir = tempDir('antenna-player-');
  const tv = join(dir, 'media', 'tv');
  const movies = join(dir, 'media', 'movies');
  const videos = join(dir, 'media', 'videos');

  clip(
    join(tv, 'Harbour Lights (2020)', 'Season 01', 'Harbour Lights - S01E01 - Pilot.mkv'),
    options.episodeSeconds ?? 30,
  );

  // A movie with chapters at 0, 5 and 12 seconds.
  const moviePlain = join(dir, 'movie-plain.mkv');
  clip(moviePlain, 20);
  const chapters = join(dir, 'chapters.txt');
  writeFileSync(
    chapters,
    ';FFMETADATA1\n' +
      ['0-5000:Opening', '5000-12000:Middle', '12000-20000:Ending']
        .map((c) => {
          const [range, title] = c.split(':') as [string, string];
          const [start, end] = range.split('-');
          return `[CHAPTER]\nTIMEBASE=1/1000\nSTART=${start}\nEND=${end}\ntitle=${title}\n`;
        })
        .join(''),
  );
  mkdirSync(join(movies, 'Chapter House (2019)'), { recursive: true });
  ffmpeg([
    '-i',
    moviePlain,
    '-i',
    chapters,
    '-map_metadata',
    '1',
    '-map_chapters',
    '1',
    '-c',
    'copy',
    join(movies, 'Chapter House (2019)', 'Chapter House (2019).mkv'),
  ]);

  // A video with a subtitle track that is not selected by default.
  const videoPlain = join(dir, 'video-plain.mkv');
  clip(videoPlain, 20);
  const srt = join(dir, 'subs.srt');
  writeFileSync(srt, '1\n00:00:00,500 --> 00:00:19,000\nHello from the captions\n');
  mkdirSync(join(videos, 'Home Movies'), { recursive: true });
  ffmpeg([
    '-i',
    videoPlain,
    '-i',
    srt,
    '-map',
    '0',
    '-map',
    '1',
    '-c',
    'copy',
    '-c:s',
    'srt',
    '-disposition:s:0',
    '0',
    join(videos, 'Home Movies', 'Beach Day.mkv'),
  ]);
  rmSync(moviePlain);
  rmSync(videoPlain);

  const ts = options.captions
    ? await makeCaptionedTsClip(join(dir, 'channel.ts'), {
        seconds: 6,
        muxrateKbps: 600,
        size: '160x120',
        text: options.captions,
      })
    : await makeTsClip(join(dir, 'channel.ts'), { seconds: 2, muxrateKbps: 600, size: '160x120' });
  const streams = await startStreamServer(ts.path);
  const channels = ['2', '4.1', '7'];
  const m3u = join(dir, 'channels.m3u');
  writeM3u(m3u, [
    { number: '2', name: 'News Two', url: streams.url('two'), tvgId: 'two.tv' },
    { number: '4.1', name: 'Four One', url: streams.url('four'), tvgId: 'four.tv' },
    { number: '7', name: 'Seven', url: streams.url('seven'), tvgId: 'seven.tv' },
  ]);
  const now = Math.floor(Date.now() / 1000);
  const xmltv = join(dir, 'guide.xml');
  writeXmltv(
    xmltv,
    [
      ['two.tv', 'News Two'],
      ['four.tv', 'Four One'],
    ],
    [
      {
        channel: 'two.tv',
        start: now - 600,
        stop: now + 3 * 3600,
        title: 'Evening News',
        extra:
          '<sub-title>Harbour report</sub-title><desc>The day in the harbour.</desc><episode-num system="xmltv_ns">1.4.</episode-num>',
      },
    ],
  );
  return {
    dir,
    roots: { tv, movies, videos },
    m3u,
    xmltv,
    streams,
    channels,
    async close() {
      await streams.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One property straight from mpv's IPC socket. */
export function mpvProperty(socketPath: string, name: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`mpv did not answer get_property ${name}`));
    }, 5000);
    socket.setEncoding('utf8');
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
      for (const line of text.split('\n')) {
        if (!line.includes('"request_id":4242')) continue;
        clearTimeout(timer);
        socket.destroy();
        const reply = JSON.parse(line) as { error: string; data?: unknown };
        resolve(reply.error === 'success' ? reply.data : null);
        return;
      }
    });
    socket.write(`${JSON.stringify({ command: ['get_property', name], request_id: 4242 })}\n`);
  });
}
