-- Webhooks: receivers of the events (GET /dvr/webhooks), and each event's delivery to
-- each, which is also the queue (a pending row is sent, retried with backoff, and
-- resumed after a restart) and the delivery log Settings shows.
-- AUTOINCREMENT: an id is never given again, so nothing of a removed webhook (a POST under way) touches a new one.
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  -- JSON array of event kinds; [] is every kind.
  kinds TEXT NOT NULL DEFAULT '[]',
  -- The HMAC key; never answered, never logged.
  secret TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  -- 'config': from --webhook or the config file (changed there); 'managed': made over the API.
  origin TEXT NOT NULL DEFAULT 'managed',
  created_at INTEGER NOT NULL
);

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  -- pending, delivered, failed (out of attempts) or dropped (a queue past its bound).
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  -- The JSON posted, the same bytes at every attempt (so the signature is too).
  body TEXT NOT NULL,
  http_status INTEGER,
  error TEXT,
  duration_ms INTEGER,
  created_at INTEGER NOT NULL,
  done_at INTEGER
);

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, state, next_at);
