-- An imported file that plays but is damaged: its data ends before the length its
-- container declares (a copy or download cut short). Why, in words for the user; NULL
-- for a whole file. Such an item is corrupted (items.corrupted = 1) and still served,
-- with the duration its data has; a corrupted import without this is not media.
ALTER TABLE import_files ADD COLUMN damaged TEXT;
