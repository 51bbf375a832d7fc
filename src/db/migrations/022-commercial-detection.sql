-- Where a recording's commercial detection stands (GET /dvr/files/:id's file.commercial_detection):
-- 'pending' (waiting for a live slot, or for the final pass once it ended), 'live' (comskip follows the
-- recording as it is written), 'live_failed' (that run failed: no live marks; the final pass still runs),
-- 'final' (the final pass is running), 'done', 'failed' (the final pass could not judge the file), 'off'
-- (comskip is not installed or detection is turned off). commercials_error says why, for the failed states.
ALTER TABLE recordings ADD COLUMN commercials_state TEXT NOT NULL DEFAULT 'pending'
  CHECK (commercials_state IN ('pending', 'live', 'live_failed', 'final', 'done', 'failed', 'off'));
ALTER TABLE recordings ADD COLUMN commercials_error TEXT;
-- Recordings processed before this migration had their final pass: whether comskip ran then is not known, so
-- their marks (or none) stand as done.
UPDATE recordings SET commercials_state = 'done' WHERE state = 'processed';
