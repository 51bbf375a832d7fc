/**
 * Live TV in the player: where a channel plays from and how a seek moves through its
 * buffer on the server, in wall-clock time, the same on both backends.
 *
 * The app (browser backend) plays a channel's whole buffer through hls.js and reports the
 * moment on screen (its `clock`): a seek is a seek within it. mpv plays the URL it is
 * given and holds only what its cache holds: the player asks for the buffer from a moment
 * (`buffer.m3u8?from=`), mpv plays it from its first segment, and that segment's start
 * (asked of the server beside mpv) plus mpv's position is the moment on screen. A seek
 * mpv's cache holds is a seek; one it does not is a new load from that moment. Before the
 * buffer clamps to its start (the server's); at or past live is live.
 */
import type { Logger } from 'pino';
import type { AntennaServerClient } from './antenna-server.client.js';
import { liveSeekTarget } from './live-position.js';
import { NoEffect } from './no-effect.js';
import type { MediaRef, MediaState, PlayerBackend } from './player-backend.js';
import type { PlayingChannel } from './player-state.js';

/** "Live" is this far behind the newest second received: three 2-second segments, as HLS players start. */
export const LIVE_EDGE_MS = 6000;

export interface LivePlaybackParts {
  backend: PlayerBackend;
  server: AntennaServerClient;
  logger: Logger;
  /** Loads `url` for the current play (the service's load: errors, tags, waiting). */
  load: (
    url: string,
    media: MediaRef,
    tag: number,
    options: { title: string; fromFirstSegment?: boolean },
  ) => Promise<void>;
  /** Whether `playing` is still what plays. */
  current: (playing: PlayingChannel) => boolean;
  newTag: () => number;
  /** Epoch ms; default: the server's clock (its buffer's times are), as its answers tell. */
  now?: () => number;
}

export class LivePlayback {
  constructor(private readonly parts: LivePlaybackParts) {}

  private now(): number {
    return this.parts.now?.() ?? this.parts.server.serverNow();
  }

  /** Plays the channel from `at` (epoch ms) or live. */
  async play(playing: PlayingChannel, at: number | 'live'): Promise<void> {
    const { backend, server } = this.parts;
    const number = playing.channel.number;
    const media = { kind: 'channel', number } as const;
    if (!backend.liveByUrl) {
      await this.parts.load(server.liveStreamUrl(number), media, playing.tag, { title: playing.channel.name });
      return;
    }
    const from = at === 'live' ? this.now() - LIVE_EDGE_MS : at;
    playing.live = { from };
    const loading = this.parts.load(server.liveStreamUrl(number, from), media, playing.tag, {
      title: playing.channel.name,
      fromFirstSegment: true,
    });
    // Beside mpv's own request: the segment its playlist begins with is what position 0 shows. Taken once the load
    // is playing, so it is never paired with the position of what played before.
    const origin = server.liveOrigin(number, from);
    void Promise.allSettled([loading]).then(async () => {
      const start = await origin;
      if (start !== undefined && this.parts.current(playing) && playing.live?.from === from)
        playing.live.origin = start;
    });
    await loading;
  }

  /** The moment on screen (epoch ms), when known. */
  clock(playing: PlayingChannel, media: MediaState): number | undefined {
    if (!this.parts.backend.liveByUrl) return media.clock;
    const origin = playing.live?.origin;
    return origin !== undefined && media.position !== undefined ? origin + media.position * 1000 : undefined;
  }

  /** Seeks by `seconds` from the moment on screen; false when that moment is not known yet (then by position). */
  async seekBy(playing: PlayingChannel, media: MediaState, seconds: number): Promise<boolean> {
    const clock = this.clock(playing, media);
    if (clock === undefined) return false;
    await this.seekTo(playing, media, liveSeekTarget(clock, seconds, this.now(), LIVE_EDGE_MS));
    return true;
  }

  /** Plays from the moment `target` (epoch ms) or live: within what the backend holds when it can, else loaded anew. */
  async seekTo(playing: PlayingChannel, media: MediaState, target: number | 'live'): Promise<void> {
    const { backend } = this.parts;
    const clock = this.clock(playing, media);
    if (clock !== undefined && media.position !== undefined) {
      const moment = target === 'live' ? this.now() - LIVE_EDGE_MS : target;
      // Not clamped: a moment before what mpv holds is a negative position there, and a new load.
      const position = media.position + (moment - clock) / 1000;
      if (!backend.seekWithinHeld) {
        await backend.seekTo(Math.max(0, position));
        return;
      }
      if (await backend.seekWithinHeld(position)) return;
    }
    if (!backend.liveByUrl) {
      // The app plays the whole buffer: without its clock yet, live is the channel opened again.
      if (target === 'live') await this.play(playing, 'live');
      else throw new NoEffect('no_clock', 'The TV has not said yet which moment it shows; try again in a moment.');
      return;
    }
    this.parts.logger.debug({ channel: playing.channel.number, target }, 'live: loading the buffer from the moment');
    playing.tag = this.parts.newTag();
    await this.play(playing, target);
  }
}
