-- The end a job had when it started recording (issue 18): when the guide extends the
-- programme while it records, end_time moves later, up to a limit past this one
-- (MAX_EXTENSION in src/dvr/planning/job-planner.ts). NULL for jobs that have not started.
ALTER TABLE jobs ADD COLUMN planned_end_time INTEGER;
