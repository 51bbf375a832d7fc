/**
 * What a card in a list shows, from any library payload: pure, so the lists, the
 * search results and the tests agree on it.
 */
import type { Collection, Playlist, PlayableItem, Show, VideoGroup } from '../api/server-types';
import { formatDuration, itemSubtitle, itemTitle, kindOf, progressShare } from './item-view';

export type CardTarget =
  | { to: '/{-$mode}/library/items/$id'; params: { id: string } }
  | { to: '/{-$mode}/library/shows/$id'; params: { id: string } }
  | { to: '/{-$mode}/library/videos/$id'; params: { id: string } }
  | { to: '/{-$mode}/library/collections/$id'; params: { id: string } }
  | { to: '/{-$mode}/library/playlists/$id'; params: { id: string } };

export interface CardData {
  key: string;
  title: string;
  subtitle: string;
  /** Poster (portrait) or thumbnail (landscape). */
  image?: string | undefined;
  shape: 'poster' | 'wide';
  /** 0–1 of the way through; 1 when watched. */
  progress: number;
  badges: string[];
  target: CardTarget;
}

export function itemCard(item: PlayableItem, recordingNow: ReadonlySet<string> = new Set()): CardData {
  const kind = kindOf(item);
  const badges: string[] = [];
  if (recordingNow.has(item.id ?? '')) badges.push('Recording');
  if (item.watched) badges.push('Watched');
  if (item.favorited) badges.push('Favorite');
  const length = formatDuration(item.duration);
  return {
    key: item.id ?? item.program_id,
    title: itemTitle(item),
    subtitle: [itemSubtitle(item), length].filter(Boolean).join(' · '),
    image: kind === 'movie' ? (item.image_url ?? item.thumbnail_url) : (item.thumbnail_url ?? item.image_url),
    shape: kind === 'movie' ? 'poster' : 'wide',
    progress: progressShare(item),
    badges,
    target: { to: '/{-$mode}/library/items/$id', params: { id: item.id ?? '' } },
  };
}

export function showCard(show: Show): CardData {
  const unwatched = show.number_unwatched ?? 0;
  return {
    key: show.id ?? show.name ?? '',
    title: show.name ?? 'Untitled',
    subtitle: [
      `${show.episode_count ?? 0} episode${show.episode_count === 1 ? '' : 's'}`,
      unwatched > 0 ? `${unwatched} unwatched` : '',
    ]
      .filter(Boolean)
      .join(' · '),
    image: show.image_url,
    shape: 'poster',
    progress: 0,
    badges: show.favorited ? ['Favorite'] : [],
    target: { to: '/{-$mode}/library/shows/$id', params: { id: show.id ?? '' } },
  };
}

export function groupCard(group: VideoGroup): CardData {
  return {
    key: group.id ?? '',
    title: group.name ?? 'Untitled',
    subtitle: `${group.video_count ?? 0} video${group.video_count === 1 ? '' : 's'}`,
    image: group.image_url,
    shape: 'poster',
    progress: 0,
    badges: group.favorited ? ['Favorite'] : [],
    target: { to: '/{-$mode}/library/videos/$id', params: { id: group.id ?? '' } },
  };
}

export function collectionCard(collection: Collection): CardData {
  return {
    key: collection.id ?? '',
    title: collection.name ?? 'Untitled',
    subtitle: `${collection.content_count ?? 0} ${collection.collection_type === 'shows' ? 'shows' : 'movies'}`,
    image: collection.image_url,
    shape: 'poster',
    progress: 0,
    badges: [],
    target: { to: '/{-$mode}/library/collections/$id', params: { id: collection.id ?? '' } },
  };
}

export function playlistCard(playlist: Playlist): CardData {
  return {
    key: playlist.id ?? '',
    title: playlist.name ?? 'Untitled',
    subtitle: `${playlist.content_count ?? 0} item${playlist.content_count === 1 ? '' : 's'}`,
    shape: 'wide',
    progress: 0,
    badges: [],
    target: { to: '/{-$mode}/library/playlists/$id', params: { id: playlist.id ?? '' } },
  };
}

/** Collection content mixes shows and playable items. */
export function contentCard(entry: PlayableItem | Show, recordingNow?: ReadonlySet<string>): CardData {
  return 'episode_count' in entry || ('name' in entry && !('program_id' in entry))
    ? showCard(entry as Show)
    : itemCard(entry as PlayableItem, recordingNow);
}

/** How many cards fit in a row of `width` pixels, cards at least `minWidth` wide with `gap` between. */
export function columnsFor(width: number, minWidth: number, gap: number): number {
  if (!(width > 0) || !Number.isFinite(width)) return 1;
  return Math.max(1, Math.floor((width + gap) / (minWidth + gap)));
}

/**
 * The height of a row of cards `cardWidth` wide: the art (its width less the link's
 * padding, at `ratio` height/width) and the fixed text block of styles.css (.card-link:
 * 0.25rem padding, two 1.25rem lines, 0.2rem gaps: 3.4rem), then the gap below.
 */
export function cardRowHeight(cardWidth: number, ratio: number, rem: number, gap: number): number {
  return (cardWidth - 0.5 * rem) * ratio + 3.4 * rem + gap;
}
