-- The lineup is the user's (issue 21): what a source says of a channel is kept apart
-- from what the user made of it, so a refresh that replaces the source's channels
-- keeps every rename, renumber, hide, logo, group, favorite and guide choice.
--
-- channel_edits holds the user's edits, one row per channel edited, and how to find
-- that channel again at the next refresh: the source's stable id for it (an M3U tvg-id
-- unique in its playlist), else its number and name at the source. A field left NULL
-- is the source's. Rows outlive their channel (it may come back) and their source (the
-- same location added again has the same id).
CREATE TABLE channel_edits (
  id             INTEGER PRIMARY KEY,
  source_id      TEXT NOT NULL,
  source_key     TEXT,
  source_number  TEXT NOT NULL,
  source_name    TEXT NOT NULL,
  number         TEXT,
  name           TEXT,
  logo           TEXT,
  group_name     TEXT,
  hidden         INTEGER,
  favorite       INTEGER,
  -- `guide id` TAB `xmltv id`: the guide channel the user chose for it.
  guide_channel  TEXT,
  -- A JSON array of guide ids tried first for this channel.
  guide_priority TEXT CHECK (guide_priority IS NULL OR json_valid(guide_priority)),
  updated_at     INTEGER NOT NULL
);
CREATE INDEX channel_edits_source ON channel_edits (source_id);

-- A channel row holds the result (what every reader shows) and what the source said.
ALTER TABLE channels ADD COLUMN source_number TEXT;
ALTER TABLE channels ADD COLUMN source_name TEXT;
ALTER TABLE channels ADD COLUMN source_logo TEXT;
ALTER TABLE channels ADD COLUMN source_group TEXT;
ALTER TABLE channels ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE channels ADD COLUMN edit_id INTEGER;
ALTER TABLE channels ADD COLUMN guide_channel TEXT;
ALTER TABLE channels ADD COLUMN guide_priority TEXT;
UPDATE channels SET source_number = number, source_name = name, source_logo = image_url, source_group = group_title;

-- Favorites were kept by number; each channel carrying a favorite number now has an
-- edit saying so (found again by its number and name).
INSERT INTO channel_edits (source_id, source_number, source_name, favorite, updated_at)
  SELECT c.source_id, c.number, c.name, 1, c.updated_at
    FROM channels c JOIN channel_favorites f ON f.number = c.number
   WHERE c.source_id IS NOT NULL;
UPDATE channels SET edit_id = (SELECT e.id FROM channel_edits e WHERE e.source_id = channels.source_id AND e.source_number = channels.number),
                    favorited = (number IN (SELECT number FROM channel_favorites));
DROP TABLE channel_favorites;

-- The kind of a refresh not applied (refresh-checks.ts), beside its `error`: the lists say
-- whether confirming it would apply it.
ALTER TABLE dvr_sources ADD COLUMN rejected TEXT;
ALTER TABLE dvr_guides ADD COLUMN rejected TEXT;

-- Where guides describe one channel, the first in this order (lower first) gives its programmes.
ALTER TABLE dvr_guides ADD COLUMN priority INTEGER NOT NULL DEFAULT 100;

-- A counter that moves whenever the lineup or what describes it may have changed (a
-- channel, a guide, a guide channel): what lineup-snapshot.ts reads to know whether the
-- lineup it read is still current, whoever wrote (a refresh, an edit, another process).
CREATE TABLE lineup_version (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT INTO lineup_version (id, n) VALUES (1, 0);
CREATE TRIGGER lineup_channels_insert AFTER INSERT ON channels BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_channels_update AFTER UPDATE ON channels BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_channels_delete AFTER DELETE ON channels BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_guide_channels_insert AFTER INSERT ON guide_channels BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_guide_channels_update AFTER UPDATE ON guide_channels BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_guide_channels_delete AFTER DELETE ON guide_channels BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_guides_insert AFTER INSERT ON dvr_guides BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_guides_update AFTER UPDATE OF priority, id ON dvr_guides BEGIN UPDATE lineup_version SET n = n + 1; END;
CREATE TRIGGER lineup_guides_delete AFTER DELETE ON dvr_guides BEGIN UPDATE lineup_version SET n = n + 1; END;
