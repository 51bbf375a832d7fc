/** A job as the planner makes it and the jobs repository stores it. */
import type { JobItem } from '../library/library.schemas.js';

export interface PlannedJob {
  id: string;
  ruleId: number;
  name: string;
  start: number;
  end: number;
  channels: string[];
  channel?: string;
  sourceId?: string;
  skipped: boolean;
  error?: string;
  /** The first of the airing's episode keys, stored with the recording for later de-duplication. */
  episodeKey?: string;
  item: JobItem;
}
