-- What happened, told (GET /dvr/events, webhooks, MQTT): a bounded recent log, so a
-- client that reconnects (Last-Event-ID) or a server restart replays what it missed.
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  severity TEXT NOT NULL,
  message TEXT NOT NULL,
  data TEXT NOT NULL
);
