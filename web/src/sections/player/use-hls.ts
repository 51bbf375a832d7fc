/**
 * Plays an HLS URL in a <video>: hls.js where the browser has Media Source
 * Extensions, the browser's own HLS otherwise (Safari, some TVs). Reports the failure
 * that ends playback as a readable sentence.
 */
import Hls, { type ErrorData } from 'hls.js';
import { type RefObject, useEffect, useState } from 'react';

export interface HlsTracks {
  audio: Array<{ id: number; name: string }>;
  subtitles: Array<{ id: number; name: string }>;
  audioTrack: number;
  subtitleTrack: number;
}

export interface HlsHandle {
  hls: Hls | null;
  error: string | null;
  tracks: HlsTracks;
}

/** The server's name for the rendition that is the source itself, remuxed (src/streaming). */
const ORIGINAL_RENDITION = 'remux';
const BACK_BUFFER_SECONDS = 60;
/** The bandwidth hls.js assumes before it has measured any (bits per second). */
const HOME_NETWORK_BPS = 20_000_000;

const NO_TRACKS: HlsTracks = { audio: [], subtitles: [], audioTrack: -1, subtitleTrack: -1 };

/** The sentence for a fatal hls.js error. */
export function describeHlsError(
  data: Pick<ErrorData, 'type' | 'details'> & { response?: { code?: number | undefined } | undefined },
): string {
  const code = data.response?.code;
  if (code === 503)
    return 'The server is too busy to start this stream (too many transcodes, or no free tuner). Try again in a moment.';
  if (code === 404) return 'The stream ended or is gone from the server.';
  if (data.type === 'networkError')
    return `The stream could not be loaded${code ? ` (HTTP ${code})` : ''}. Check the connection to the server.`;
  if (data.type === 'mediaError') return 'This browser cannot decode the stream.';
  return `Playback failed (${data.details}).`;
}

/**
 * The furthest a playhead that has not played yet is moved to reach the first buffered
 * range (seconds). A recording joined mid-stream can have its first frames a second
 * after the segment's start (audio before the first video key frame): the buffered
 * range starts there, and a video waiting at 0 to autoplay never plays, since hls.js
 * jumps start gaps only while playing (seen in a growing recording under load).
 */
const START_GAP_JUMP_SECONDS = 6;

/**
 * Where a playhead at `currentTime` that has not played yet should move to: the start of
 * the first buffered range after it when that is near (START_GAP_JUMP_SECONDS), else
 * null (it is inside a range, or nothing near is buffered).
 */
export function startGapTarget(currentTime: number, ranges: ReadonlyArray<readonly [number, number]>): number | null {
  if (ranges.some(([start, end]) => currentTime >= start && currentTime < end)) return null;
  const next = ranges.find(([start]) => start > currentTime);
  return next && next[0] - currentTime <= START_GAP_JUMP_SECONDS ? next[0] : null;
}

function bufferedRanges(element: HTMLVideoElement): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < element.buffered.length; i++) ranges.push([element.buffered.start(i), element.buffered.end(i)]);
  return ranges;
}

/**
 * `startPosition`: seconds to start at (0: the start, even of a growing playlist), or -1 for the live edge.
 * `fallbackUrl`: played instead when the server answers `url` with 409 (a live buffer the browser cannot play as it
 * is: the transcoding renditions then).
 * `progressive`: `requested` is a channel's live buffer, whose last segment arrives as it is received
 * (src/dvr/live/open-segment.ts): its bytes are demuxed and appended as they come, so a tune shows the first
 * keyframe at once instead of after the whole segment (hls.js's streaming mode, fetch and chunked transmuxing).
 */
export function useHls(
  video: RefObject<HTMLVideoElement | null>,
  requested: string | null,
  startPosition: number,
  fallbackUrl?: string,
  progressive = false,
): HlsHandle {
  const [hls, setHls] = useState<Hls | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tracks, setTracks] = useState<HlsTracks>(NO_TRACKS);
  const [fellBack, setFellBack] = useState<string | null>(null);
  const url = fellBack === requested && fallbackUrl ? fallbackUrl : requested;
  useEffect(() => {
    const element = video.current;
    if (!element || !url) return;
    setError(null);
    setTracks(NO_TRACKS);
    // Plays as soon as it can, unless paused before that (a remote's pause, or a player's
    // command, while the stream opens): pause() clears autoplay, where a play() called
    // once the stream is ready would override it.
    element.autoplay = true;
    if (!Hls.isSupported()) {
      if (element.canPlayType('application/vnd.apple.mpegurl')) {
        // The browser's own HLS cannot be told of a 409: it plays what never needs one (the master playlist, whose
        // renditions are the same buffer's, transcoded where the browser needs it).
        element.src = fallbackUrl ?? url;
        if (startPosition > 0)
          element.addEventListener('loadedmetadata', () => (element.currentTime = startPosition), { once: true });
      } else setError('This browser cannot play HLS video.');
      return () => element.removeAttribute('src');
    }
    // Loading starts once the renditions are known (below), on the original one.
    // What has played is kept for a minute back (a quick jump back stays instant), not the
    // whole film: a TV plays for hours, and its memory must stay flat.
    const player = new Hls({
      progressive: progressive && url === requested,
      startPosition,
      autoStartLoad: false,
      enableWorker: true,
      lowLatencyMode: false,
      abrEwmaDefaultEstimate: HOME_NETWORK_BPS,
      backBufferLength: BACK_BUFFER_SECONDS,
    });
    const readTracks = () =>
      setTracks({
        audio: player.audioTracks.map((track) => ({
          id: track.id,
          name: track.name || track.lang || `Audio ${track.id + 1}`,
        })),
        subtitles: player.subtitleTracks.map((track) => ({
          id: track.id,
          name: track.name || track.lang || `Subtitles ${track.id + 1}`,
        })),
        audioTrack: player.audioTrack,
        subtitleTrack: player.subtitleTrack,
      });
    player.on(Hls.Events.MANIFEST_PARSED, (_event, data) => {
      // A home network, not a phone's: start on the original stream (the server's "remux"
      // rendition) and let measured throughput move it down. hls.js would start on the
      // smallest rendition: a transcode nobody needs, which the server refuses (503)
      // while its transcode slots are taken.
      const original = data.levels.findIndex((level) => level.name === ORIGINAL_RENDITION);
      if (original >= 0) player.startLevel = original;
      player.startLoad(startPosition);
      readTracks();
    });
    player.on(Hls.Events.FRAG_BUFFERED, () => {
      if (element.played.length > 0 || element.seeking) return;
      const target = startGapTarget(element.currentTime, bufferedRanges(element));
      if (target !== null) element.currentTime = target;
    });
    player.on(Hls.Events.AUDIO_TRACKS_UPDATED, readTracks);
    player.on(Hls.Events.SUBTITLE_TRACKS_UPDATED, readTracks);
    player.on(Hls.Events.AUDIO_TRACK_SWITCHED, readTracks);
    player.on(Hls.Events.SUBTITLE_TRACK_SWITCH, readTracks);
    let recoveredMedia = false;
    player.on(Hls.Events.ERROR, (_event, data) => {
      if (!data.fatal) return;
      if (data.response?.code === 409 && fallbackUrl && url !== fallbackUrl) {
        setFellBack(requested);
        return;
      }
      // A decoding hiccup is worth one recovery before giving up.
      if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recoveredMedia) {
        recoveredMedia = true;
        player.recoverMediaError();
        return;
      }
      setError(describeHlsError(data));
    });
    player.loadSource(url);
    player.attachMedia(element);
    setHls(player);
    return () => {
      player.destroy();
      setHls(null);
    };
  }, [video, url, startPosition, fallbackUrl, requested, progressive]);
  return { hls, error, tracks };
}
