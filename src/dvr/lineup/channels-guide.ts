/**
 * Airings and channels in Channels' guide shape (pure): PascalCase fields, a programme's
 * kind in Categories (Series, Movie, Sports, News: what its remote apps filter on) and
 * the guide's own categories as Genres.
 */
import type { ChannelsAiring, ChannelsGuideEntry } from '../../model/dvr/channels-guide.schemas.js';
import type { StreamableChannel } from '../../repositories/dvr/sources.repository.js';
import type { Airing } from './airing.js';

const KINDS: [kind: string, words: RegExp][] = [
  ['Movie', /^(movie|film|feature film)s?$/i],
  ['Sports', /^(sports?|sports event|sports non-event)$/i],
  ['News', /^news$/i],
];

/** Channels' kind of a programme from its guide categories; Series when it has episodes or a series id. */
export function airingKinds(categories: readonly string[], episodic: boolean): string[] {
  const kinds = KINDS.filter(([, words]) => categories.some((category) => words.test(category.trim()))).map(
    ([kind]) => kind,
  );
  if (episodic && !kinds.includes('Movie')) kinds.unshift('Series');
  return kinds;
}

export function channelsAiring(number: string, airing: Airing): ChannelsAiring {
  const categories = airing.categories ?? [];
  const episodic = Boolean(airing.seriesId || airing.episodeTitle || airing.season !== undefined);
  return {
    Channel: number,
    Time: airing.start,
    Duration: airing.stop - airing.start,
    Title: airing.title,
    ...(airing.episodeTitle ? { EpisodeTitle: airing.episodeTitle } : {}),
    ...(airing.summary ? { Summary: airing.summary } : {}),
    ...(airing.image ? { Image: airing.image } : {}),
    ...(airing.season !== undefined ? { SeasonNumber: airing.season } : {}),
    ...(airing.episode !== undefined ? { EpisodeNumber: airing.episode } : {}),
    ...(airing.originalAirDate ? { OriginalDate: airing.originalAirDate } : {}),
    ...(airing.year !== undefined ? { ReleaseYear: airing.year } : {}),
    ...(airing.rating ? { Rating: airing.rating } : {}),
    Categories: airingKinds(categories, episodic),
    Genres: [...categories],
    Tags: airing.isNew ? ['New'] : [],
    ...(airing.seriesId ? { SeriesID: airing.seriesId } : {}),
    ...(airing.programId ? { ProgramID: airing.programId } : {}),
  };
}

export function channelsGuideChannel(
  channel: Pick<StreamableChannel, 'number' | 'name' | 'image_url' | 'call_sign' | 'hd' | 'favorited'>,
  station: string | undefined,
): ChannelsGuideEntry['Channel'] {
  return {
    Number: channel.number,
    Name: channel.name,
    ChannelID: channel.number,
    ...(station ? { Station: station } : {}),
    ...(channel.call_sign ? { CallSign: channel.call_sign } : {}),
    ...(channel.image_url ? { Image: channel.image_url } : {}),
    HD: channel.hd === 1,
    Favorite: channel.favorited === 1,
  };
}
