-- A guide refresh writes its programmes beside the ones readers see, under a generation
-- of their own, and swaps them in by setting the guide's generation: one short write,
-- where replacing hundreds of thousands of rows in one transaction held every request
-- for seconds (issue 21). Readers take a row only when its guide's current generation is
-- the row's ((guide_id, generation) IN dvr_guides); the replaced rows are deleted
-- afterwards, a few at a time (repositories/guide-writer.ts).
ALTER TABLE dvr_guides ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE programmes ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
