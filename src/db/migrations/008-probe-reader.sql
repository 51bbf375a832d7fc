-- Which reader probed an imported file: 'mediainfo' (in-process, headers only) or
-- 'ffprobe' (the fallback, and the reference). NULL for files probed before this
-- column existed (by ffprobe) and for files not probed yet.
ALTER TABLE import_files ADD COLUMN probe_reader TEXT;
