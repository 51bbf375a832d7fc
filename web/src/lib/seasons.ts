/** A show's episodes by season, in the order the server gave them within each. */
import type { Episode } from '../api/server-types';

export interface Season {
  /** null for episodes without a season number (specials, dailies). */
  number: number | null;
  label: string;
  episodes: Episode[];
}

export function seasonsOf(episodes: readonly Episode[]): Season[] {
  const bySeason = new Map<number | null, Episode[]>();
  for (const episode of episodes) {
    const key = episode.season_number ?? null;
    const list = bySeason.get(key);
    if (list) list.push(episode);
    else bySeason.set(key, [episode]);
  }
  return [...bySeason.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : a - b))
    .map(([number, list]) => ({
      number,
      label: number === null ? 'Other episodes' : number === 0 ? 'Specials' : `Season ${number}`,
      episodes: list,
    }));
}
