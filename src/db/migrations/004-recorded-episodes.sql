-- Episodes the DVR has recorded, kept after their recordings are pruned or deleted:
-- "an episode already recorded is not recorded again" must outlive the file.
CREATE TABLE recorded_episodes (
  episode_key TEXT PRIMARY KEY,
  recorded_at INTEGER NOT NULL
);
