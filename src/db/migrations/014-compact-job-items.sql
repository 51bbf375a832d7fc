-- Interface A's job list is written by SQLite from each job's stored item as it is
-- (repositories/job-projection.ts), so an item is stored as it is shown: the fields of
-- the job item schema that have a value, no nulls (repositories/jobs.repository.ts,
-- compactJobItem, keeps it so for every write). This makes the items stored before so.
-- json_each gives true and false as 1 and 0, and objects and arrays as text: each is
-- turned back into its JSON.
UPDATE jobs SET item = (
  SELECT json_group_object(
    key,
    CASE type WHEN 'true' THEN json('true') WHEN 'false' THEN json('false') WHEN 'object' THEN json(value) WHEN 'array' THEN json(value) ELSE value END
  )
  FROM json_each(jobs.item)
  WHERE type != 'null' AND key IN (
    'show_id', 'program_id', 'season_number', 'episode_number', 'title', 'episode_title', 'summary', 'full_summary', 'content_rating',
    'image_url', 'duration', 'playback_time', 'original_air_date', 'release_year', 'release_date', 'genres', 'tags', 'categories',
    'cast', 'directors', 'watched', 'favorited', 'delayed', 'cancelled', 'corrupted', 'completed', 'processed', 'locked', 'verified'
  )
)
WHERE json_valid(item) AND json_type(item) = 'object';
