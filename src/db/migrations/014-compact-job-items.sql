-- Interface A's job list is written by SQLite from each job's stored item as it is
-- (repositories/job-projection.ts), so an item is stored as it is shown: the fields of
-- the job item schema that have a value, in the schema's order, no nulls
-- (repositories/jobs.repository.ts, compactJobItem, keeps it so for every write). This
-- stores the items written before so, in the same order and form as compactJobItem
-- writes them (else the next re-plan would find every job changed). Each value is
-- turned into its JSON text in the inner query and taken as JSON by the outer one
-- (json_each gives true and false as 1 and 0, and a JSON subtype does not survive a
-- subquery).
UPDATE jobs SET item = (
  SELECT json_group_object(key, json(value_json))
  FROM (
    SELECT
      key,
      CASE type
        WHEN 'true' THEN 'true'
        WHEN 'false' THEN 'false'
        WHEN 'object' THEN value
        WHEN 'array' THEN value
        ELSE json_quote(value)
      END AS value_json,
      instr(
        ',show_id,program_id,season_number,episode_number,title,episode_title,summary,full_summary,content_rating,image_url,duration,playback_time,original_air_date,release_year,release_date,genres,tags,categories,cast,directors,watched,favorited,delayed,cancelled,corrupted,completed,processed,locked,verified,',
        ',' || key || ','
      ) AS position
    FROM json_each(jobs.item)
    WHERE type != 'null'
    ORDER BY position
  )
  WHERE position > 0
)
WHERE json_valid(item) AND json_type(item) = 'object';
