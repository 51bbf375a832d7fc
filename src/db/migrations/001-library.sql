-- The library: shows and video groups (parents), one table of playable items
-- (episodes, movies and videos share one id space), collections, playlists,
-- recording jobs, channels and the configured import roots.
-- List-valued fields are JSON arrays stored as TEXT; NULL means "unknown" and is
-- omitted from payloads. Booleans are 0/1. Timestamps are epoch milliseconds
-- except jobs.start_time/end_time (epoch seconds, as interface A serves them).

CREATE TABLE shows (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  summary       TEXT,
  image_url     TEXT,
  release_year  INTEGER,
  release_date  TEXT,
  genres        TEXT,
  categories    TEXT,
  labels        TEXT,
  cast_members  TEXT,
  favorited     INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX shows_name ON shows (name COLLATE NOCASE);

CREATE TABLE video_groups (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  summary       TEXT,
  image_url     TEXT,
  release_year  INTEGER,
  release_date  TEXT,
  genres        TEXT,
  categories    TEXT,
  labels        TEXT,
  favorited     INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX video_groups_name ON video_groups (name COLLATE NOCASE);

CREATE TABLE items (
  id                TEXT PRIMARY KEY,
  kind              TEXT NOT NULL CHECK (kind IN ('episode', 'movie', 'video')),
  source            TEXT NOT NULL CHECK (source IN ('recordings', 'imports')),
  show_id           TEXT REFERENCES shows (id) ON DELETE CASCADE,
  video_group_id    TEXT REFERENCES video_groups (id) ON DELETE CASCADE,
  program_id        TEXT,
  path              TEXT,
  channel           TEXT,
  season_number     INTEGER,
  episode_number    INTEGER,
  -- The item's own title: a movie's title, an episode's episode_title, a video's video_title.
  title             TEXT,
  event_title       TEXT,
  summary           TEXT,
  full_summary      TEXT,
  content_rating    TEXT,
  image_url         TEXT,
  thumbnail_url     TEXT,
  -- NUMERIC keeps whole seconds as integers, so JSON shows 1800 rather than 1800.0.
  duration          NUMERIC,
  playback_time     NUMERIC NOT NULL DEFAULT 0,
  original_air_date TEXT,
  release_year      INTEGER,
  release_date      TEXT,
  genres            TEXT,
  tags              TEXT,
  categories        TEXT,
  cast_members      TEXT,
  directors         TEXT,
  labels            TEXT,
  commercials       TEXT,
  watched           INTEGER NOT NULL DEFAULT 0,
  favorited         INTEGER NOT NULL DEFAULT 0,
  delayed           INTEGER NOT NULL DEFAULT 0,
  cancelled         INTEGER NOT NULL DEFAULT 0,
  corrupted         INTEGER NOT NULL DEFAULT 0,
  completed         INTEGER NOT NULL DEFAULT 0,
  processed         INTEGER NOT NULL DEFAULT 0,
  locked            INTEGER NOT NULL DEFAULT 0,
  verified          INTEGER NOT NULL DEFAULT 0,
  last_watched_at   INTEGER,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  CHECK ((kind = 'episode') = (show_id IS NOT NULL)),
  CHECK ((kind = 'video') = (video_group_id IS NOT NULL)),
  -- Interface A's JSON for items is written by SQL that trusts these types (item-projection.ts).
  CHECK (typeof(season_number) IN ('integer', 'null') AND typeof(episode_number) IN ('integer', 'null')
     AND typeof(release_year) IN ('integer', 'null') AND typeof(last_watched_at) IN ('integer', 'null')
     AND typeof(created_at) = 'integer' AND typeof(updated_at) = 'integer'),
  CHECK (typeof(duration) IN ('integer', 'real', 'null') AND typeof(playback_time) IN ('integer', 'real')),
  CHECK (watched IN (0, 1) AND favorited IN (0, 1) AND delayed IN (0, 1) AND cancelled IN (0, 1)
     AND corrupted IN (0, 1) AND completed IN (0, 1) AND processed IN (0, 1) AND locked IN (0, 1) AND verified IN (0, 1)),
  CHECK (coalesce(json_type(genres), 'array') = 'array' AND coalesce(json_type(tags), 'array') = 'array'
     AND coalesce(json_type(categories), 'array') = 'array' AND coalesce(json_type(cast_members), 'array') = 'array'
     AND coalesce(json_type(directors), 'array') = 'array' AND coalesce(json_type(labels), 'array') = 'array'
     AND coalesce(json_type(commercials), 'array') = 'array')
);
CREATE INDEX items_kind_created ON items (kind, created_at);
CREATE INDEX items_show ON items (show_id, season_number, episode_number);
CREATE INDEX items_video_group ON items (video_group_id, season_number, episode_number);
CREATE INDEX items_kind_title ON items (kind, title COLLATE NOCASE);

CREATE TABLE collections (
  id              TEXT PRIMARY KEY,
  collection_type TEXT NOT NULL CHECK (collection_type IN ('movies', 'shows')),
  name            TEXT NOT NULL,
  image_url       TEXT,
  labels          TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX collections_name ON collections (name COLLATE NOCASE);

-- Members of a shows collection are shows; of a movies collection, movies.
-- Collections are sets: their content is listed in a sort order, not insertion order.
CREATE TABLE collection_shows (
  collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  show_id       TEXT NOT NULL REFERENCES shows (id) ON DELETE CASCADE,
  PRIMARY KEY (collection_id, show_id)
);
CREATE INDEX collection_shows_show ON collection_shows (show_id);

CREATE TABLE collection_movies (
  collection_id TEXT NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  movie_id      TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
  PRIMARY KEY (collection_id, movie_id)
);
CREATE INDEX collection_movies_movie ON collection_movies (movie_id);

-- Safety net under the repository's own checks: members must match the collection's type.
CREATE TRIGGER collection_shows_type BEFORE INSERT ON collection_shows
WHEN (SELECT collection_type FROM collections WHERE id = NEW.collection_id) IS NOT 'shows'
BEGIN SELECT RAISE(ABORT, 'only a shows collection holds shows'); END;

CREATE TRIGGER collection_movies_type BEFORE INSERT ON collection_movies
WHEN (SELECT collection_type FROM collections WHERE id = NEW.collection_id) IS NOT 'movies'
  OR (SELECT kind FROM items WHERE id = NEW.movie_id) IS NOT 'movie'
BEGIN SELECT RAISE(ABORT, 'only a movies collection holds movies, and only movies'); END;

CREATE TABLE playlists (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  labels     TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX playlists_name ON playlists (name COLLATE NOCASE);

-- An item may appear more than once in a playlist; position orders it.
CREATE TABLE playlist_items (
  playlist_id TEXT NOT NULL REFERENCES playlists (id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  item_id     TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
  PRIMARY KEY (playlist_id, position)
);
CREATE INDEX playlist_items_item ON playlist_items (item_id);

CREATE TABLE jobs (
  id         TEXT PRIMARY KEY CHECK (id GLOB '[0-9]*-[0-9]*'),
  name       TEXT NOT NULL,
  start_time INTEGER NOT NULL,
  end_time   INTEGER NOT NULL CHECK (end_time >= start_time),
  channels   TEXT NOT NULL DEFAULT '[]',
  channel    TEXT,
  skipped    INTEGER NOT NULL DEFAULT 0,
  failed     INTEGER NOT NULL DEFAULT 0,
  error      TEXT,
  -- The airing item to record, as a JSON object in episode or movie shape.
  item       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX jobs_start ON jobs (start_time);

CREATE TABLE channels (
  id         TEXT PRIMARY KEY,
  number     TEXT NOT NULL,
  name       TEXT NOT NULL,
  call_sign  TEXT,
  image_url  TEXT,
  hd         INTEGER NOT NULL DEFAULT 0,
  favorited  INTEGER NOT NULL DEFAULT 0,
  source_id  TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE import_roots (
  kind TEXT NOT NULL CHECK (kind IN ('tv', 'movies', 'videos')),
  path TEXT NOT NULL,
  PRIMARY KEY (kind, path)
);
