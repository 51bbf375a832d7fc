/**
 * The library's lists: Recordings (newest first, those being written marked), TV
 * shows, Movies, Videos (groups), Collections and Playlists, and the pages one level
 * down (a show's episodes by season, a group's videos, a collection's or playlist's
 * content). Each is a virtualized card grid over an interface-A list.
 */
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { libraryQueries } from '../../api/library.queries';
import type { Episode } from '../../api/server-types';
import { CardGrid } from '../../components/card-grid';
import { Empty, ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import {
  type CardData,
  collectionCard,
  contentCard,
  groupCard,
  itemCard,
  playlistCard,
  showCard,
} from '../../lib/cards';
import { seasonsOf } from '../../lib/seasons';

/** Loading, error and empty states around a list's cards. */
function CardList<T>({
  query,
  what,
  empty,
  toCards,
}: {
  query: UseQueryResult<T[]>;
  what: string;
  empty: string;
  toCards: (rows: T[]) => CardData[];
}) {
  const cards = useMemo(() => (query.data ? toCards(query.data) : []), [query.data, toCards]);
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <ErrorNotice error={query.error} retry={() => void query.refetch()} />;
  if (cards.length === 0) return <Empty>{empty}</Empty>;
  return <CardGrid cards={cards} label={what} />;
}

export function useRecordingNow(): ReadonlySet<string> {
  const status = useQuery(libraryQueries.status());
  return useMemo(() => new Set(status.data?.dvr?.recording_files ?? []), [status.data]);
}

export function RecordingsPage() {
  const query = useQuery(libraryQueries.recordings());
  const now = useRecordingNow();
  const toCards = useMemo(
    () => (rows: Parameters<typeof itemCard>[0][]) => rows.map((row) => itemCard(row, now)),
    [now],
  );
  return (
    <CardList
      query={query}
      what="recordings"
      empty="No recordings yet. Record something from the Guide, or set up a pass under DVR."
      toCards={toCards}
    />
  );
}

export function ShowsPage() {
  return (
    <CardList
      query={useQuery(libraryQueries.shows())}
      what="TV shows"
      empty="No TV shows in the library."
      toCards={(rows) => rows.map(showCard)}
    />
  );
}

export function MoviesPage() {
  return (
    <CardList
      query={useQuery(libraryQueries.movies())}
      what="movies"
      empty="No movies in the library."
      toCards={(rows) => rows.map((row) => itemCard(row))}
    />
  );
}

export function VideoGroupsPage() {
  return (
    <CardList
      query={useQuery(libraryQueries.videoGroups())}
      what="videos"
      empty="No videos in the library."
      toCards={(rows) => rows.map(groupCard)}
    />
  );
}

export function CollectionsPage() {
  return (
    <CardList
      query={useQuery(libraryQueries.collections())}
      what="collections"
      empty="No collections yet."
      toCards={(rows) => rows.map(collectionCard)}
    />
  );
}

export function PlaylistsPage() {
  return (
    <CardList
      query={useQuery(libraryQueries.playlists())}
      what="playlists"
      empty="No playlists yet."
      toCards={(rows) => rows.map(playlistCard)}
    />
  );
}

export function ShowPage({ id }: { id: string }) {
  const show = useQuery(libraryQueries.show(id));
  const episodes = useQuery(libraryQueries.showEpisodes(id));
  const now = useRecordingNow();
  const seasons = useMemo(() => seasonsOf(episodes.data ?? []), [episodes.data]);
  const [chosen, setChosen] = useState<number | null | undefined>(undefined);
  const season = seasons.find((s) => s.number === chosen) ?? seasons[0];
  if (show.isError) return <ErrorNotice error={show.error} retry={() => void show.refetch()} />;
  return (
    <section aria-labelledby="show-title">
      <header className="detail-header">
        {show.data?.image_url && <img className="detail-poster" src={show.data.image_url} alt="" />}
        <div>
          <h2 id="show-title">{show.data?.name ?? '…'}</h2>
          {show.data?.summary && <p className="summary">{show.data.summary}</p>}
          {seasons.length > 1 && (
            <div className="tabs" role="tablist" aria-label="Seasons">
              {seasons.map((s) => (
                <FocusButton
                  key={String(s.number)}
                  role="tab"
                  aria-selected={s === season}
                  className={s === season ? 'tab active' : 'tab'}
                  onClick={() => setChosen(s.number)}
                >
                  {s.label}
                </FocusButton>
              ))}
            </div>
          )}
        </div>
      </header>
      <CardList
        query={{ ...episodes, data: season?.episodes } as UseQueryResult<Episode[]>}
        what="episodes"
        empty="This show has no episodes."
        toCards={(rows) => rows.map((row) => itemCard(row, now))}
      />
    </section>
  );
}

export function VideoGroupPage({ id }: { id: string }) {
  const group = useQuery(libraryQueries.videoGroup(id));
  return (
    <section>
      <h2>{group.data?.name ?? '…'}</h2>
      <CardList
        query={useQuery(libraryQueries.groupVideos(id))}
        what="videos"
        empty="This group has no videos."
        toCards={(rows) => rows.map((row) => itemCard(row))}
      />
    </section>
  );
}

export function CollectionPage({ id }: { id: string }) {
  const collection = useQuery(libraryQueries.collection(id));
  return (
    <section>
      <h2>{collection.data?.name ?? '…'}</h2>
      <CardList
        query={useQuery(libraryQueries.collectionContent(id))}
        what="collection"
        empty="This collection is empty."
        toCards={(rows) => rows.map((row) => contentCard(row))}
      />
    </section>
  );
}

export function PlaylistPage({ id }: { id: string }) {
  const playlist = useQuery(libraryQueries.playlist(id));
  return (
    <section>
      <h2>{playlist.data?.name ?? '…'}</h2>
      <CardList
        query={useQuery(libraryQueries.playlistContent(id))}
        what="playlist"
        empty="This playlist is empty."
        toCards={(rows) => rows.map((row) => itemCard(row))}
      />
    </section>
  );
}
