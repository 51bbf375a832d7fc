/**
 * The player view: full-window video with play/pause, a seek bar showing commercial
 * breaks, skip commercial, captions and track choice, and the next episode. For an
 * item it reports the position as the mpv player does (every 10 s, on pause and on
 * leaving; watched in the last 5 %), so resume and watch state agree across players.
 */
import { setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useRouter } from '@tanstack/react-router';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { dvrQueries } from '../../api/dvr.queries';
import { libraryQueries } from '../../api/library.queries';
import { reportPosition, reportWatched } from '../../api/library.mutations';
import type { Episode, FileItem } from '../../api/server-types';
import { ErrorNotice } from '../../components/error-notice';
import { FocusButton, FocusGroup } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { commercialSpans, formatClock, itemSubtitle, itemTitle, skipTarget } from '../../lib/item-view';
import { progressReport } from '../../../../src/player/player-state';
import { beginPlay, driven, leavePlayer } from '../../player-bridge/bridge';
import { useHls } from './use-hls';
import {
  behindLive,
  clampToWindow,
  type LiveWindow,
  liveWindowOf,
  programmeSpans,
  startOverFromRecording,
  startOverTarget,
} from './live-window';
import { LiveSeekBar } from './live-seek-bar';
import { RecordToggle } from './record-toggle';
import { PlayOnButton } from '../../components/play-on';
import { hlsUrlOf, type PlayerSource, useChannelProgrammes } from './player-source';
import { CommercialSkip, useCommercialSkipMode } from './commercial-skip';
import { marksMayChange } from '../../../../src/player/commercial-skip';

export type { PlayerSource };

const REPORT_EVERY_MS = 10_000;
const MARKS_REFRESH_MS = 15_000;

/** Sends the position while an item plays; once watched, says so once and stops. */
function useProgressReports(video: React.RefObject<HTMLVideoElement | null>, item: FileItem | undefined) {
  const done = useRef(false);
  const send = useCallback(
    (atEnd: boolean) => {
      const element = video.current;
      if (!item || !element || done.current) return;
      const duration =
        item.duration > 0 ? item.duration : Number.isFinite(element.duration) ? element.duration : undefined;
      const report = progressReport(element.currentTime, duration, atEnd);
      if (!report) return;
      if (report.watched) done.current = true;
      // A failed report is not worth interrupting playback for; the next one carries the position again.
      void (report.watched ? reportWatched(item.id) : reportPosition(item.id, report.seconds)).catch(() => undefined);
    },
    [video, item],
  );
  useEffect(() => {
    const element = video.current;
    if (!element || !item) return;
    done.current = false;
    const timer = setInterval(() => !element.paused && send(false), REPORT_EVERY_MS);
    const onPause = () => element.currentTime > 0 && send(false);
    const onEnded = () => send(true);
    element.addEventListener('pause', onPause);
    element.addEventListener('ended', onEnded);
    return () => {
      clearInterval(timer);
      element.removeEventListener('pause', onPause);
      element.removeEventListener('ended', onEnded);
      if (element.currentTime > 0) send(false);
    };
  }, [video, item, send]);
}

/**
 * On a player's screen: tells the player what this view plays, from mount to unmount (a
 * play the person started has no ticket), and leaves the view when the media ends, as a
 * TV does.
 */
function usePlayerBridge(
  video: React.RefObject<HTMLVideoElement | null>,
  source: PlayerSource,
  captions: React.RefObject<boolean>,
  toggleCaptions: React.RefObject<() => boolean | undefined>,
  clock: React.RefObject<() => number | undefined>,
) {
  const session = useRef<ReturnType<typeof beginPlay> | undefined>(undefined);
  const media =
    source.kind === 'file'
      ? ({ kind: 'item', id: source.id } as const)
      : ({ kind: 'channel', number: source.number } as const);
  const key = JSON.stringify(media);
  useEffect(() => {
    const element = video.current;
    if (!driven || !element) return;
    const begun = beginPlay(JSON.parse(key) as typeof media, source.ticket, element, {
      captionsShown: () => captions.current,
      toggleCaptions: () => toggleCaptions.current(),
      clock: () => clock.current(),
    });
    session.current = begun;
    const leave = () => void leavePlayer();
    element.addEventListener('ended', leave);
    return () => {
      element.removeEventListener('ended', leave);
      begun.end();
      session.current = undefined;
    };
    // One session per mount: the route's key changes with what is played.
  }, []);
  return session;
}

/**
 * Shows or hides one text track: CEA-608 captions (kind 'captions', which hls.js makes
 * but does not switch) and, without hls.js, the browser's own HLS tracks.
 */
function applyCaptions(track: TextTrack, shown: boolean, hlsOwnsSubtitles: boolean): void {
  if (hlsOwnsSubtitles && track.kind !== 'captions') return;
  track.mode = shown ? 'showing' : 'hidden';
}

function useNextEpisode(item: FileItem | undefined): Episode | undefined {
  const showId = item && 'show_id' in item ? item.show_id : undefined;
  const episodes = useQuery({ ...libraryQueries.showEpisodes(showId ?? ''), enabled: showId !== undefined });
  return useMemo(() => {
    const list = episodes.data ?? [];
    const at = list.findIndex((episode) => episode.id === item?.id);
    return at >= 0 ? list[at + 1] : undefined;
  }, [episodes.data, item?.id]);
}

export function PlayerView({ source }: { source: PlayerSource }) {
  const mode = useMode();
  const router = useRouter();
  const navigate = useNavigate();
  const video = useRef<HTMLVideoElement>(null);
  const item = useQuery({
    ...libraryQueries.file(source.kind === 'file' ? source.id : ''),
    enabled: source.kind === 'file',
    // A recording still being made gains commercial marks as it goes (the events feed also says when).
    refetchInterval: (query) => (query.state.data && marksMayChange(query.state.data) ? MARKS_REFRESH_MS : false),
  });
  const channels = useQuery({ ...libraryQueries.channels(), enabled: source.kind === 'channel' });
  // A file starts where asked (0 is its start, even while its playlist grows); live at its live edge (-1).
  const playing = hlsUrlOf(source);
  const { hls, error, tracks } = useHls(
    video,
    playing.url,
    source.kind === 'file' ? source.start : -1,
    playing.fallback,
    source.kind === 'channel',
  );
  const [time, setTime] = useState(0);
  const [liveSpan, setLiveSpan] = useState<LiveWindow | undefined>(undefined);
  const guide = useChannelProgrammes(source.kind === 'channel' ? source.number : undefined);
  const programme = guide.now;
  const [duration, setDuration] = useState(0);
  const [paused, setPaused] = useState(true);
  const [captions, setCaptions] = useState(false);
  const next = useNextEpisode(item.data);
  // On a player's screen the player reports progress (one reporter for every backend).
  useProgressReports(video, driven ? undefined : item.data);
  const captionsRef = useRef(false);
  captionsRef.current = captions;
  const toggleCaptionsRef = useRef<() => boolean | undefined>(() => undefined);
  // Live TV: the moment on screen, for the player's seeks in wall-clock time (start over, seek by seconds).
  const clockRef = useRef<() => number | undefined>(() => undefined);
  clockRef.current = () => (source.kind === 'channel' ? hls?.playingDate?.getTime() : undefined);
  const playSession = usePlayerBridge(video, source, captionsRef, toggleCaptionsRef, clockRef);
  useEffect(() => {
    if (error) playSession.current?.failed(error);
  }, [error, playSession]);

  useEffect(() => {
    const element = video.current;
    if (!element) return;
    const update = () => {
      setTime(element.currentTime);
      setDuration(Number.isFinite(element.duration) ? element.duration : 0);
      setPaused(element.paused);
      const ranges: Array<[number, number]> = [];
      for (let i = 0; i < element.seekable.length; i++)
        ranges.push([element.seekable.start(i), element.seekable.end(i)]);
      setLiveSpan(liveWindowOf(ranges));
    };
    const events = ['timeupdate', 'play', 'pause', 'durationchange', 'loadedmetadata', 'progress'];
    for (const name of events) element.addEventListener(name, update);
    return () => events.forEach((name) => element.removeEventListener(name, update));
  }, []);

  // A remote starts on play/pause, the control one reaches for first.
  useEffect(() => {
    void setFocus('player-toggle');
  }, []);
  // On a player's screen Back leaves for the page the player was opened from, even with no history behind it.
  const back = useCallback(() => (driven ? void leavePlayer() : router.history.back()), [router]);
  const seekTo = (seconds: number) => {
    if (!video.current) return;
    video.current.currentTime =
      source.kind === 'channel'
        ? clampToWindow(liveSpan, seconds)
        : // A growing recording's length is not known yet: no end to keep clear of.
          Math.max(0, duration > 0 ? Math.min(seconds, duration - 0.5) : seconds);
  };
  const behind = source.kind === 'channel' ? behindLive(liveSpan, time) : 0;
  const toLive = () => seekTo(hls?.liveSyncPosition ?? (liveSpan ? liveSpan.end - 6 : time));
  const startOver = startOverTarget(liveSpan, time, hls?.playingDate?.getTime(), programme?.start_time);
  // The buffer does not reach the programme's start: a recording of it under way may (its file from that second).
  const recordingNow = useQuery({
    ...dvrQueries.recordingOn(source.kind === 'channel' ? source.number : ''),
    enabled: source.kind === 'channel' && startOver === undefined && programme !== undefined,
  });
  const startOverFile =
    startOver === undefined ? startOverFromRecording(programme?.start_time, recordingNow.data) : undefined;
  const toggle = useCallback(() => {
    const element = video.current;
    if (element) void (element.paused ? element.play().catch(() => undefined) : element.pause());
  }, []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target;
      if (
        target instanceof HTMLInputElement ||
        target instanceof HTMLTextAreaElement ||
        target instanceof HTMLSelectElement
      )
        return;
      if (event.key === 'Escape' || event.key === 'Backspace' || event.key === 'GoBack' || event.key === 'BrowserBack')
        back();
      else if (
        event.key === 'MediaPlayPause' ||
        (event.key === ' ' && (event.target as HTMLElement).tagName !== 'BUTTON')
      )
        toggle();
      else if (event.key === 'MediaFastForward' && video.current) video.current.currentTime += 30;
      else if (event.key === 'MediaRewind' && video.current) video.current.currentTime -= 10;
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [back, toggle]);

  const setCaptionsShown = (shown: boolean) => {
    setCaptions(shown);
    captionsRef.current = shown;
    if (hls) {
      // hls.js owns its subtitle renditions' tracks (setting their modes would switch tracks): it is told, not them.
      hls.subtitleDisplay = shown;
      if (shown && hls.subtitleTrack < 0 && tracks.subtitles[0]) hls.subtitleTrack = tracks.subtitles[0].id;
    }
    for (const track of Array.from(video.current?.textTracks ?? [])) applyCaptions(track, shown, hls !== null);
    playSession.current?.changed();
  };
  toggleCaptionsRef.current = () => {
    // A channel's captions (CEA-608) appear as a track only once the stream has carried some: it may always be asked.
    const available =
      source.kind === 'channel' || tracks.subtitles.length > 0 || (video.current?.textTracks.length ?? 0) > 0;
    if (!available) return undefined;
    setCaptionsShown(!captionsRef.current);
    return captionsRef.current;
  };
  // A caption track that appears later (a channel's first captions) follows what was asked.
  useEffect(() => {
    const tracksOfVideo = video.current?.textTracks;
    if (!tracksOfVideo) return;
    const added = (event: TrackEvent) =>
      event.track && applyCaptions(event.track as TextTrack, captionsRef.current, hls !== null);
    tracksOfVideo.addEventListener('addtrack', added);
    return () => tracksOfVideo.removeEventListener('addtrack', added);
  }, [hls]);

  const marks = source.kind === 'file' && item.data && 'commercials' in item.data ? item.data.commercials : undefined;
  const spans = commercialSpans(marks);
  const skipMode = useCommercialSkipMode();
  const skip = skipTarget(marks, time);
  const channel = source.kind === 'channel' ? channels.data?.find((c) => c.number === source.number) : undefined;
  const title =
    source.kind === 'file' ? (item.data ? itemTitle(item.data) : '') : `${source.number} ${channel?.name ?? ''}`.trim();
  const subtitle = source.kind === 'file' && item.data ? itemSubtitle(item.data) : 'Live TV';
  const length = duration || item.data?.duration || 0;

  return (
    <div
      className="player"
      data-state={paused ? 'paused' : 'playing'}
      data-commercial-skip={skipMode}
      data-breaks={spans.length}
    >
      <video
        ref={video}
        className="player-video"
        playsInline
        aria-label={`${title} ${subtitle}`.trim()}
        onClick={toggle}
      />
      {error && (
        <div className="player-error">
          <ErrorNotice error={new Error(error)} />
        </div>
      )}
      {item.isError && <ErrorNotice error={item.error} />}
      {source.kind === 'file' && <CommercialSkip video={video} marks={marks} start={source.start} seekTo={seekTo} />}
      <div className="player-controls" role="group" aria-label="Player controls">
        <div className="player-titles">
          <strong>{title}</strong>
          <span>{subtitle}</span>
        </div>
        {source.kind === 'file' && length > 0 && (
          <div className="seek">
            <span className="clock">{formatClock(time)}</span>
            <div className="seek-track">
              {spans.map(([start, end]) => (
                <span
                  key={start}
                  className="seek-mark"
                  style={{ left: `${(start / length) * 100}%`, width: `${((end - start) / length) * 100}%` }}
                  title="Commercial break"
                />
              ))}
              <input
                type="range"
                aria-label="Position"
                min={0}
                max={Math.round(length)}
                step={1}
                value={Math.floor(time)}
                onChange={(event) => seekTo(Number(event.target.value))}
              />
            </div>
            <span className="clock">{formatClock(length)}</span>
          </div>
        )}
        {source.kind === 'channel' && liveSpan && (
          <LiveSeekBar
            span={liveSpan}
            time={time}
            behind={behind}
            seekTo={seekTo}
            programmes={programmeSpans(liveSpan, time, hls?.playingDate?.getTime(), guide.airings)}
          />
        )}
        <FocusGroup className="actions">
          <FocusButton onClick={back} aria-label="Back">
            ← Back
          </FocusButton>
          {source.kind === 'channel' && startOver !== undefined && (
            <FocusButton onClick={() => seekTo(startOver)} aria-label="Start over">
              Start over
            </FocusButton>
          )}
          {source.kind === 'channel' && startOverFile !== undefined && (
            <FocusButton
              onClick={() =>
                void navigate({
                  to: '/{-$mode}/watch/$id',
                  params: { mode, id: startOverFile.fileId },
                  search: { start: startOverFile.start },
                })
              }
              aria-label="Start over"
              title="From the programme's start, in its recording"
            >
              Start over
            </FocusButton>
          )}
          {source.kind === 'channel' && liveSpan && (
            <FocusButton onClick={() => seekTo(time - 10)} aria-label="−10 s, back 10 seconds">
              −10 s
            </FocusButton>
          )}
          {source.kind === 'file' && (
            <FocusButton onClick={() => seekTo(time - 10)} aria-label="−10 s, back 10 seconds">
              −10 s
            </FocusButton>
          )}
          <FocusButton
            className="primary"
            onClick={toggle}
            aria-label={paused ? 'Play' : 'Pause'}
            focusKey="player-toggle"
          >
            {paused ? 'Play' : 'Pause'}
          </FocusButton>
          {source.kind === 'file' && (
            <FocusButton onClick={() => seekTo(time + 30)} aria-label="+30 s, forward 30 seconds">
              +30 s
            </FocusButton>
          )}
          {behind > 0 && (
            <FocusButton onClick={toLive} aria-label="Live, jump to live">
              Live ▸
            </FocusButton>
          )}
          {source.kind === 'channel' && <RecordToggle channel={source.number} />}
          <PlayOnButton
            what={source.kind === 'channel' ? { channel: source.number } : { item_id: source.id }}
            label={source.kind === 'channel' ? `channel ${source.number}` : 'this'}
          />
          {skip !== undefined && <FocusButton onClick={() => seekTo(skip)}>Skip commercial</FocusButton>}
          <FocusButton onClick={() => setCaptionsShown(!captions)} aria-pressed={captions}>
            Captions {captions ? 'on' : 'off'}
          </FocusButton>
          {tracks.audio.length > 1 && (
            <select
              aria-label="Audio track"
              value={tracks.audioTrack}
              onChange={(event) => hls && (hls.audioTrack = Number(event.target.value))}
            >
              {tracks.audio.map((track) => (
                <option key={track.id} value={track.id}>
                  {track.name}
                </option>
              ))}
            </select>
          )}
          {tracks.subtitles.length > 0 && (
            <select
              aria-label="Subtitle track"
              value={tracks.subtitleTrack}
              onChange={(event) => hls && (hls.subtitleTrack = Number(event.target.value))}
            >
              <option value={-1}>No subtitles</option>
              {tracks.subtitles.map((track) => (
                <option key={track.id} value={track.id}>
                  {track.name}
                </option>
              ))}
            </select>
          )}
          {next?.id && (
            // Replacing this play, as plays replace each other: Back (or a stop) leaves the player rather than
            // reopening this episode.
            <FocusButton
              onClick={() =>
                void navigate({
                  to: '/{-$mode}/watch/$id',
                  params: { mode, id: next.id! },
                  search: { start: 0 },
                  replace: true,
                })
              }
            >
              Next episode
            </FocusButton>
          )}
        </FocusGroup>
      </div>
    </div>
  );
}
