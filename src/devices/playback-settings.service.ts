/**
 * The household's playback settings (today: what players do at a commercial break),
 * stored in the database. A player follows them unless it has its own
 * (PlayerRegistry.setOwnSettings); it learns what to do from the answer to its heartbeat.
 */
import type { Db } from '../db/database.js';
import {
  type CommercialSkipMode,
  DEFAULT_COMMERCIAL_SKIP,
  isCommercialSkipMode,
} from '../model/players/commercial-skip-modes.js';
import type { PlaybackSettings } from '../model/players/playback-settings.schemas.js';
import { getHouseholdSetting, putHouseholdSetting } from '../repositories/events/household-settings.repository.js';

const COMMERCIAL_SKIP_KEY = 'commercial_skip';

export class PlaybackSettingsService {
  constructor(private readonly db: Db) {}

  get(): PlaybackSettings {
    return { commercial_skip: this.commercialSkip() };
  }

  put(settings: PlaybackSettings): PlaybackSettings {
    putHouseholdSetting(this.db, COMMERCIAL_SKIP_KEY, JSON.stringify(settings.commercial_skip));
    return this.get();
  }

  /** The household's mode; a stored value this version does not know (a downgrade) reads as the default. */
  commercialSkip(): CommercialSkipMode {
    const stored = getHouseholdSetting(this.db, COMMERCIAL_SKIP_KEY);
    let value: unknown;
    try {
      value = stored === undefined ? undefined : JSON.parse(stored);
    } catch {
      // A value this server did not write (edited by hand): the default, as for an unknown one.
    }
    return isCommercialSkipMode(value) ? value : DEFAULT_COMMERCIAL_SKIP;
  }
}
