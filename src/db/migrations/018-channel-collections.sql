-- Channel collections the user makes in Settings (GET /dvr/collections/channels lists
-- them after the favorites): a name and channel numbers in the order given.
CREATE TABLE channel_collections (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  items TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX channel_collections_name ON channel_collections (name COLLATE NOCASE);
