/**
 * The Live TV section (`/live`): every channel with what is on it now and how far
 * along it is, a star to make it a favorite, and All / Favorites. Choosing a channel
 * plays it (the player's live route). The list is `GET /dvr/guide` at one instant, a
 * page of 100 channels at a time as the list scrolls: one request per page, never one
 * per channel.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useFavoriteChannel } from '../../api/guide.queries';
import { api, queryString } from '../../api/http-client';
import type { GuideChannel, GuidePage } from '../../api/server-types';
import { Empty, ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { clockOf, episodeCode, isPlaceholder, progressOf } from '../guide/guide-geometry';
import { useNow } from '../guide/guide-page';
import './live.css';

const LIVE_PAGE = 100;

function useOnNow(favorites: boolean) {
  return useInfiniteQuery({
    queryKey: ['guide', 'now', favorites],
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) =>
      api<GuidePage>(
        `/dvr/guide${queryString({ offset: pageParam, limit: LIVE_PAGE, favorites: favorites || undefined })}`,
        { signal },
      ),
    getNextPageParam: (last) =>
      last.offset + last.channels.length < last.total ? last.offset + last.channels.length : undefined,
    // What is on changes every half hour or so.
    refetchInterval: 60_000,
  });
}

export function LivePage() {
  const mode = useMode();
  const [favorites, setFavorites] = useState(false);
  const query = useOnNow(favorites);
  const now = useNow(15_000);
  const channels = query.data?.pages.flatMap((page) => page.channels) ?? [];
  return (
    <section className="live" aria-labelledby="live-title">
      <div className="live-toolbar">
        <h1 id="live-title">Live TV</h1>
        <div className="tabs" role="tablist" aria-label="Which channels">
          {[false, true].map((only) => (
            <FocusButton
              key={String(only)}
              role="tab"
              aria-selected={favorites === only}
              className={favorites === only ? 'tab active' : 'tab'}
              onClick={() => setFavorites(only)}
            >
              {only ? 'Favorites' : 'All channels'}
            </FocusButton>
          ))}
        </div>
      </div>
      {query.isPending ? (
        <Loading what="channels" />
      ) : query.isError ? (
        <ErrorNotice error={query.error} retry={() => void query.refetch()} />
      ) : channels.length === 0 ? (
        <Empty>
          {favorites
            ? 'No favorite channels yet: press the star beside a channel to add it here.'
            : 'No channels yet. Add an M3U playlist or an HDHomeRun tuner under DVR.'}
        </Empty>
      ) : (
        <ChannelList
          channels={channels}
          now={now}
          mode={mode}
          more={query.hasNextPage && !query.isFetchingNextPage ? () => void query.fetchNextPage() : undefined}
        />
      )}
    </section>
  );
}

function ChannelList({
  channels,
  now,
  mode,
  more,
}: {
  channels: GuideChannel[];
  now: number;
  mode: 'tv' | undefined;
  more: (() => void) | undefined;
}) {
  const list = useRef<HTMLUListElement>(null);
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => setOffset((list.current?.getBoundingClientRect().top ?? 0) + window.scrollY), []);
  const rowHeight = mode === 'tv' ? 120 : 76;
  const virtualizer = useWindowVirtualizer({
    count: channels.length,
    estimateSize: () => rowHeight,
    overscan: 6,
    scrollMargin: offset,
  });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1)?.index ?? 0;
  // Near the end of what is loaded: the next page.
  useEffect(() => {
    if (more && last >= channels.length - 20) more();
  }, [more, last, channels.length]);
  const favorite = useFavoriteChannel();
  return (
    <>
      {favorite.error && <ErrorNotice error={favorite.error} />}
      <ul ref={list} className="live-list" aria-label="Channels" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const channel = channels[item.index]!;
          const found = channel.airings.find((a) => a.start_time <= now && a.end_time > now) ?? channel.airings[0];
          // A placeholder hour is only the channel's name again: the row says there is no guide, with no times or
          // progress.
          const current = found && !isPlaceholder(found) ? found : undefined;
          const share = current ? progressOf(current, now) : 0;
          return (
            <li
              key={channel.number}
              className="live-row"
              style={{
                height: rowHeight - 8,
                transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)`,
              }}
            >
              <FocusLink
                to="/{-$mode}/watch/channel/$number"
                params={{ mode, number: channel.number }}
                className="live-link"
              >
                <span className="guide-sr">Watch channel </span>
                <span className="live-number">{channel.number}</span>
                <span className="live-logo">
                  {channel.image_url ? (
                    <img src={channel.image_url} alt="" loading="lazy" />
                  ) : (
                    <span aria-hidden="true">{channel.name.slice(0, 1)}</span>
                  )}
                </span>
                <span className="live-text">
                  <span className="live-name">{channel.name}</span>
                  {current ? (
                    <span className="live-now">
                      {current.recording && <span className="live-rec">● REC </span>}
                      {current.title}
                      {episodeCode(current) || current.episode_title ? (
                        <span className="live-episode">
                          {' '}
                          · {[episodeCode(current), current.episode_title].filter(Boolean).join(' ')}
                        </span>
                      ) : null}
                    </span>
                  ) : (
                    <span className="live-now live-unknown">
                      {found?.recording && <span className="live-rec">● REC </span>}
                      No guide data
                    </span>
                  )}
                </span>
                {current && (
                  <span className="live-time">
                    <span>
                      {clockOf(current.start_time)}–{clockOf(current.end_time)}
                    </span>
                    <span
                      className="live-progress"
                      role="progressbar"
                      aria-label="Progress of the programme"
                      aria-valuemin={0}
                      aria-valuemax={100}
                      aria-valuenow={Math.round(share * 100)}
                    >
                      <span style={{ width: `${share * 100}%` }} />
                    </span>
                  </span>
                )}
              </FocusLink>
              <FocusButton
                className={channel.favorited ? 'live-star on' : 'live-star'}
                aria-pressed={channel.favorited}
                aria-label={`Favorite channel ${channel.number} ${channel.name}`}
                disabled={favorite.isPending}
                onClick={() => favorite.mutate({ number: channel.number, favorite: !channel.favorited })}
              >
                {channel.favorited ? '★' : '☆'}
              </FocusButton>
            </li>
          );
        })}
      </ul>
    </>
  );
}
