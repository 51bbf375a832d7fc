-- Indexes for re-planning after one rule's edit (issue 18): a series rule's programmes
-- are found by series id or by title (case ignored, as the planner compares them)
-- without reading a 14-day guide row by row (about 130 ms on 200,000 programmes).
CREATE INDEX programmes_series_id ON programmes (series_id);
CREATE INDEX programmes_title_nocase ON programmes (title COLLATE NOCASE);
