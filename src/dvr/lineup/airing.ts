/**
 * Airings: programmes from the guide on the channel numbers they air on, as the planner,
 * the rule types and the guide routes see them.
 */
import type { ProgrammeFields, ProgrammeRow, ProgrammeTuple } from '../../repositories/dvr/guide.repository.js';

/** One programme from the guide, on every channel number its guide channel maps to. */
export interface Airing extends ProgrammeFields {
  channels: string[];
}

/**
 * A guide row as the planner sees it. Categories stay JSON until asked for: only the
 * few airings that become jobs need them, and parsing 200,000 of them per plan did not pay.
 */
export class ProgrammeAiring implements Airing {
  constructor(
    readonly channels: string[],
    readonly start: number,
    readonly stop: number,
    readonly title: string,
    readonly isNew: boolean,
    readonly episodeTitle: string | undefined,
    readonly season: number | undefined,
    readonly episode: number | undefined,
    readonly summary: string | undefined,
    private readonly categoriesJson: string | null,
    readonly originalAirDate: string | undefined,
    readonly rating: string | undefined,
    readonly image: string | undefined,
    readonly programId: string | undefined,
    readonly seriesId: string | undefined,
    readonly year: number | undefined,
  ) {}

  static fromTuple(t: ProgrammeTuple, channels: string[]): ProgrammeAiring {
    return new ProgrammeAiring(
      channels,
      t[2],
      t[3],
      t[4],
      t[11] === 1,
      t[5] ?? undefined,
      t[6] ?? undefined,
      t[7] ?? undefined,
      t[8] ?? undefined,
      t[9],
      t[10] ?? undefined,
      t[12] ?? undefined,
      t[13] ?? undefined,
      t[14] ?? undefined,
      t[15] ?? undefined,
      t[16] ?? undefined,
    );
  }

  static fromRow(r: ProgrammeRow, channels: string[]): ProgrammeAiring {
    return ProgrammeAiring.fromTuple(
      [
        r.guide_id,
        r.xmltv_channel,
        r.start,
        r.stop,
        r.title,
        r.episode_title,
        r.season,
        r.episode,
        r.summary,
        r.categories,
        r.original_air_date,
        r.is_new,
        r.rating,
        r.image_url,
        r.program_id,
        r.series_id,
        r.year,
      ],
      channels,
    );
  }

  get categories(): string[] | undefined {
    return this.categoriesJson === null ? undefined : (JSON.parse(this.categoriesJson) as string[]);
  }
}
