-- The household's settings, one JSON value per key (GET /dvr/settings/playback: the
-- commercial-skip mode every player follows unless it has its own).
CREATE TABLE household_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- A player's own commercial-skip mode ('off', 'ask', 'auto'); NULL follows the household's.
ALTER TABLE players ADD COLUMN commercial_skip TEXT;
