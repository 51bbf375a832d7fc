/** What a scan did, and how far it is: shared by the importer, its scheduler and the status route. */
export interface ScanSummary {
  added: number;
  updated: number;
  moved: number;
  removed: number;
  unchanged: number;
  /** Files under a root that are not media (extras, samples, partial downloads). */
  ignored: number;
  probed: number;
  /** Time spent probing, in milliseconds. */
  probeMs: number;
  thumbnails: number;
  failed: { path: string; reason: string }[];
  /** Roots that were missing, unreadable or empty: nothing under them was removed. */
  skippedRoots: { path: string; reason: string }[];
  durationMs: number;
}

export interface ScanProgress {
  phase: 'idle' | 'walking' | 'importing' | 'probing' | 'thumbnails' | 'done';
  /** Media files the walk has found. */
  filesSeen: number;
  /** Files probed and thumbnails made in the probing under way (or the last). */
  probed: number;
  thumbnails: number;
  /** What waits: files to probe, thumbnails to make (files not probed yet included). */
  toProbe: number;
  toThumbnail: number;
  /**
   * The phase's own rate (files walked, probed or thumbnailed per second, over the last seconds); absent until
   * measured.
   */
  perSecond?: number;
  /**
   * Seconds until the phase under way (probing, or thumbnails) is done, at its rate; absent while walking (the total is
   * not known), before a rate is measured, or stalled.
   */
  secondsLeft?: number;
}

export function emptySummary(): ScanSummary {
  return {
    added: 0,
    updated: 0,
    moved: 0,
    removed: 0,
    unchanged: 0,
    ignored: 0,
    probed: 0,
    probeMs: 0,
    thumbnails: 0,
    failed: [],
    skippedRoots: [],
    durationMs: 0,
  };
}
