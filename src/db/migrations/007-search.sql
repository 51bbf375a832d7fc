-- Search (GET /dvr/search): full-text indexes of what a person looks for by name,
-- kept in step with the tables by triggers, so no write path has to remember them.
-- FTS5's unicode61 tokenizer folds case and (remove_diacritics 2) accents, so
-- "cafe" finds "Café". The indexes are contentless: they hold only the words' index,
-- not a second copy of the text, and contentless_delete lets a row go by its rowid.

-- Shows, video groups and playable items have text ids, and a table's implicit rowid
-- may change on VACUUM: each indexed row gets a stable document number here.
CREATE TABLE search_docs (
  doc    INTEGER PRIMARY KEY,
  source TEXT NOT NULL CHECK (source IN ('show', 'video_group', 'item')),
  ref    TEXT NOT NULL,
  UNIQUE (source, ref)
);

-- A show or group: its name. An episode: its show's name and its own title, so
-- "lighthouse storm" finds the episode "Storm" of "The Lighthouse Keepers"; a video
-- likewise with its group's name; a movie: its title.
CREATE VIRTUAL TABLE library_fts USING fts5(words, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER search_show_insert AFTER INSERT ON shows BEGIN
  INSERT INTO search_docs (source, ref) VALUES ('show', NEW.id);
  INSERT INTO library_fts (rowid, words) SELECT doc, NEW.name FROM search_docs WHERE source = 'show' AND ref = NEW.id;
END;

-- A renamed show re-indexes its episodes too: their words carry its name.
CREATE TRIGGER search_show_rename AFTER UPDATE OF name ON shows WHEN OLD.name IS NOT NEW.name BEGIN
  DELETE FROM library_fts WHERE rowid IN (
    SELECT doc FROM search_docs WHERE source = 'show' AND ref = NEW.id
    UNION ALL
    SELECT d.doc FROM items i JOIN search_docs d ON d.source = 'item' AND d.ref = i.id WHERE i.show_id = NEW.id);
  INSERT INTO library_fts (rowid, words) SELECT doc, NEW.name FROM search_docs WHERE source = 'show' AND ref = NEW.id;
  INSERT INTO library_fts (rowid, words)
    SELECT d.doc, concat_ws(' ', NEW.name, i.title) FROM items i JOIN search_docs d ON d.source = 'item' AND d.ref = i.id WHERE i.show_id = NEW.id;
END;

-- Its episodes go by the foreign key's cascade, which fires their own delete trigger.
CREATE TRIGGER search_show_delete AFTER DELETE ON shows BEGIN
  DELETE FROM library_fts WHERE rowid = (SELECT doc FROM search_docs WHERE source = 'show' AND ref = OLD.id);
  DELETE FROM search_docs WHERE source = 'show' AND ref = OLD.id;
END;

CREATE TRIGGER search_group_insert AFTER INSERT ON video_groups BEGIN
  INSERT INTO search_docs (source, ref) VALUES ('video_group', NEW.id);
  INSERT INTO library_fts (rowid, words) SELECT doc, NEW.name FROM search_docs WHERE source = 'video_group' AND ref = NEW.id;
END;

CREATE TRIGGER search_group_rename AFTER UPDATE OF name ON video_groups WHEN OLD.name IS NOT NEW.name BEGIN
  DELETE FROM library_fts WHERE rowid IN (
    SELECT doc FROM search_docs WHERE source = 'video_group' AND ref = NEW.id
    UNION ALL
    SELECT d.doc FROM items i JOIN search_docs d ON d.source = 'item' AND d.ref = i.id WHERE i.video_group_id = NEW.id);
  INSERT INTO library_fts (rowid, words) SELECT doc, NEW.name FROM search_docs WHERE source = 'video_group' AND ref = NEW.id;
  INSERT INTO library_fts (rowid, words)
    SELECT d.doc, concat_ws(' ', NEW.name, i.title) FROM items i JOIN search_docs d ON d.source = 'item' AND d.ref = i.id WHERE i.video_group_id = NEW.id;
END;

CREATE TRIGGER search_group_delete AFTER DELETE ON video_groups BEGIN
  DELETE FROM library_fts WHERE rowid = (SELECT doc FROM search_docs WHERE source = 'video_group' AND ref = OLD.id);
  DELETE FROM search_docs WHERE source = 'video_group' AND ref = OLD.id;
END;

CREATE TRIGGER search_item_insert AFTER INSERT ON items BEGIN
  INSERT INTO search_docs (source, ref) VALUES ('item', NEW.id);
  INSERT INTO library_fts (rowid, words)
    SELECT doc, concat_ws(' ', (SELECT name FROM shows WHERE id = NEW.show_id), (SELECT name FROM video_groups WHERE id = NEW.video_group_id), NEW.title)
      FROM search_docs WHERE source = 'item' AND ref = NEW.id;
END;

-- Only a change of the indexed words re-indexes: a rescan that rewrites the same title costs nothing here.
CREATE TRIGGER search_item_update AFTER UPDATE OF title, show_id, video_group_id ON items
WHEN OLD.title IS NOT NEW.title OR OLD.show_id IS NOT NEW.show_id OR OLD.video_group_id IS NOT NEW.video_group_id BEGIN
  DELETE FROM library_fts WHERE rowid = (SELECT doc FROM search_docs WHERE source = 'item' AND ref = NEW.id);
  INSERT INTO library_fts (rowid, words)
    SELECT doc, concat_ws(' ', (SELECT name FROM shows WHERE id = NEW.show_id), (SELECT name FROM video_groups WHERE id = NEW.video_group_id), NEW.title)
      FROM search_docs WHERE source = 'item' AND ref = NEW.id;
END;

CREATE TRIGGER search_item_delete AFTER DELETE ON items BEGIN
  DELETE FROM library_fts WHERE rowid = (SELECT doc FROM search_docs WHERE source = 'item' AND ref = OLD.id);
  DELETE FROM search_docs WHERE source = 'item' AND ref = OLD.id;
END;

-- What a library already holds.
INSERT INTO search_docs (source, ref) SELECT 'show', id FROM shows;
INSERT INTO search_docs (source, ref) SELECT 'video_group', id FROM video_groups;
INSERT INTO search_docs (source, ref) SELECT 'item', id FROM items;
INSERT INTO library_fts (rowid, words) SELECT d.doc, t.name FROM shows t JOIN search_docs d ON d.source = 'show' AND d.ref = t.id;
INSERT INTO library_fts (rowid, words) SELECT d.doc, t.name FROM video_groups t JOIN search_docs d ON d.source = 'video_group' AND d.ref = t.id;
INSERT INTO library_fts (rowid, words)
  SELECT d.doc, concat_ws(' ', s.name, g.name, i.title)
    FROM items i JOIN search_docs d ON d.source = 'item' AND d.ref = i.id
    LEFT JOIN shows s ON s.id = i.show_id LEFT JOIN video_groups g ON g.id = i.video_group_id;

-- Guide programmes: title and episode title, by the programme's own integer id (stable).
CREATE VIRTUAL TABLE programme_fts USING fts5(words, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER search_programme_insert AFTER INSERT ON programmes BEGIN
  INSERT INTO programme_fts (rowid, words) VALUES (NEW.id, concat_ws(' ', NEW.title, NEW.episode_title));
END;

CREATE TRIGGER search_programme_update AFTER UPDATE OF id, title, episode_title ON programmes BEGIN
  DELETE FROM programme_fts WHERE rowid = OLD.id;
  INSERT INTO programme_fts (rowid, words) VALUES (NEW.id, concat_ws(' ', NEW.title, NEW.episode_title));
END;

CREATE TRIGGER search_programme_delete AFTER DELETE ON programmes BEGIN
  DELETE FROM programme_fts WHERE rowid = OLD.id;
END;

INSERT INTO programme_fts (rowid, words) SELECT id, concat_ws(' ', title, episode_title) FROM programmes;
