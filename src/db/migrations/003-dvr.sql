-- The DVR: where channels come from (sources), the programme guide, recording rules,
-- the state of jobs, and the recordings it made. Times are epoch seconds where the
-- guide and jobs use them (start, stop) and epoch milliseconds for created/updated.

-- An M3U playlist or an HDHomeRun tuner. `origin` says who owns the row: 'config'
-- rows are made again from flags/config at every start; 'managed' rows were added
-- through the management interface and stay until removed there.
CREATE TABLE dvr_sources (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('m3u', 'hdhomerun')),
  location     TEXT NOT NULL,
  name         TEXT NOT NULL,
  -- Simultaneous streams the source allows: an M3U's configured limit, a tuner's count.
  stream_limit INTEGER NOT NULL CHECK (stream_limit >= 1),
  origin       TEXT NOT NULL CHECK (origin IN ('config', 'managed')),
  refreshed_at INTEGER,
  error        TEXT,
  skipped      INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  UNIQUE (kind, location)
);

-- Channels gain where to stream them from and what the guide may call them.
ALTER TABLE channels ADD COLUMN stream_url TEXT;
ALTER TABLE channels ADD COLUMN guide_id TEXT;
ALTER TABLE channels ADD COLUMN guide_name TEXT;
ALTER TABLE channels ADD COLUMN group_title TEXT;
CREATE INDEX channels_source ON channels (source_id);
CREATE INDEX channels_number ON channels (number);

-- A channel's favorite flag is the user's, not the source's: it survives a source
-- refresh that deletes and re-adds the channel row.
CREATE TABLE channel_favorites (
  number TEXT PRIMARY KEY
);

CREATE TABLE dvr_guides (
  id           TEXT PRIMARY KEY,
  location     TEXT NOT NULL UNIQUE,
  origin       TEXT NOT NULL CHECK (origin IN ('config', 'managed')),
  refreshed_at INTEGER,
  error        TEXT,
  programmes   INTEGER NOT NULL DEFAULT 0,
  skipped      INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

CREATE TABLE guide_channels (
  guide_id      TEXT NOT NULL REFERENCES dvr_guides (id) ON DELETE CASCADE,
  xmltv_id      TEXT NOT NULL,
  display_names TEXT NOT NULL DEFAULT '[]',
  number        TEXT,
  icon          TEXT,
  PRIMARY KEY (guide_id, xmltv_id)
);

CREATE TABLE programmes (
  id                INTEGER PRIMARY KEY,
  guide_id          TEXT NOT NULL REFERENCES dvr_guides (id) ON DELETE CASCADE,
  xmltv_channel     TEXT NOT NULL,
  start             INTEGER NOT NULL,
  stop              INTEGER NOT NULL CHECK (stop > start),
  title             TEXT NOT NULL,
  episode_title     TEXT,
  season            INTEGER,
  episode           INTEGER,
  summary           TEXT,
  categories        TEXT,
  original_air_date TEXT,
  is_new            INTEGER NOT NULL DEFAULT 0,
  rating            TEXT,
  image_url         TEXT,
  program_id        TEXT,
  series_id         TEXT,
  year              INTEGER
);
CREATE INDEX programmes_channel_start ON programmes (guide_id, xmltv_channel, start);
CREATE INDEX programmes_stop ON programmes (stop);

-- A recording rule ("pass"). Its definition is the JSON body the management
-- interface accepted (rule.schemas.ts): few rows, read whole by the job planner.
CREATE TABLE dvr_rules (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  definition TEXT NOT NULL CHECK (json_valid(definition)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Jobs gain their rule, where they stand and what they recorded into.
ALTER TABLE jobs ADD COLUMN rule_id INTEGER;
ALTER TABLE jobs ADD COLUMN state TEXT NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'recording', 'finished'));
ALTER TABLE jobs ADD COLUMN source_id TEXT;
ALTER TABLE jobs ADD COLUMN recording_id TEXT;
-- What makes two airings "the same episode": the guide's program id, else show|season|episode.
ALTER TABLE jobs ADD COLUMN episode_key TEXT;
CREATE INDEX jobs_state ON jobs (state, start_time);

-- Jobs a user skipped by hand; the planner keeps them skipped when it recomputes.
CREATE TABLE dvr_job_skips (
  job_id  TEXT PRIMARY KEY,
  skipped_at INTEGER NOT NULL
);

-- Recordings the DVR made: the library item, and what the DVR needs to know about it.
CREATE TABLE recordings (
  item_id      TEXT PRIMARY KEY REFERENCES items (id) ON DELETE CASCADE,
  job_id       TEXT NOT NULL,
  rule_id      INTEGER,
  channel      TEXT,
  source_id    TEXT,
  episode_key  TEXT,
  state        TEXT NOT NULL CHECK (state IN ('recording', 'finished', 'processed')),
  bytes        INTEGER NOT NULL DEFAULT 0,
  error        TEXT,
  started_at   INTEGER NOT NULL,
  ended_at     INTEGER,
  -- The thumbnail Antenna made of it (a file under the data directory).
  thumbnail    TEXT
);
CREATE INDEX recordings_rule ON recordings (rule_id, started_at);
CREATE INDEX recordings_episode_key ON recordings (episode_key);
CREATE INDEX recordings_state ON recordings (state);
