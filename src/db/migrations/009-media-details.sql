-- What an imported file holds, as its probe read it (issue 22): container, video codec,
-- size, frame rate and HDR, audio codecs, channels and languages, subtitle tracks, as
-- JSON (src/model/media-details.schemas.ts). NULL until probed. Files probed before this
-- column existed keep their durations and tags and have no details until they change.
ALTER TABLE import_files ADD COLUMN media_details TEXT;
