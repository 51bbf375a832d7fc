-- DELETE /dvr/programs/:programId: a programme the user wants recorded again. Its
-- recordings stay (the user's to keep or delete) but no longer count as "already
-- recorded" when the DVR plans.
ALTER TABLE recordings ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0;
