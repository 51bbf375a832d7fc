-- The importer's record of the files it imported: what it saw (size, mtime, inode,
-- a content fingerprint) so a rescan re-reads only changed files and a moved file
-- keeps its item (and so its watch state). One file per item.
CREATE TABLE import_files (
  path        TEXT PRIMARY KEY,
  root        TEXT NOT NULL,
  root_kind   TEXT NOT NULL CHECK (root_kind IN ('tv', 'movies', 'videos')),
  item_id     TEXT NOT NULL UNIQUE REFERENCES items (id) ON DELETE CASCADE,
  size        INTEGER NOT NULL,
  mtime_ms    INTEGER NOT NULL,
  dev         INTEGER NOT NULL,
  ino         INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  -- Names, sizes and mtimes of the file's NFO and artwork: a change re-imports it.
  sidecars    TEXT NOT NULL DEFAULT '',
  -- ffprobe's findings: NULL until probed.
  probed_at   INTEGER,
  chapters    TEXT CHECK (coalesce(json_type(chapters), 'array') = 'array'),
  -- Why the last import of this file was incomplete (unreadable NFO, ffprobe failure).
  problem     TEXT,
  -- The thumbnail made from it, under the data directory; NULL until made.
  thumbnail   TEXT
);
CREATE INDEX import_files_root ON import_files (root);
CREATE INDEX import_files_fingerprint ON import_files (fingerprint);
CREATE INDEX import_files_unprobed ON import_files (probed_at) WHERE probed_at IS NULL;

-- Shows and video groups the importer created: the only parents it may remove once empty.
CREATE TABLE import_parents (
  id   TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('show', 'video_group'))
);

-- Artwork found beside the media, served at /artwork/<owner_id> (an item or a show id).
CREATE TABLE import_artwork (
  owner_id TEXT PRIMARY KEY,
  path     TEXT NOT NULL
);
