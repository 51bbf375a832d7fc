-- Files ffprobe could not read are listed in /status (and never served): a partial
-- index finds the few among many without reading every item.
CREATE INDEX items_corrupted ON items (id) WHERE corrupted = 1;
