-- The players that registered with this server (GET /dvr/clients/info): what each last
-- said of itself and when. A player's device id is its own, kept in its data directory.
CREATE TABLE players (
  device_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  hostname TEXT NOT NULL,
  local_ip TEXT NOT NULL,
  remote_ip TEXT NOT NULL,
  port INTEGER NOT NULL,
  platform TEXT NOT NULL,
  app_version TEXT NOT NULL,
  backend TEXT NOT NULL,
  status TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
