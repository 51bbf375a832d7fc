-- An airing's identity is its programme id when the guide gives one; season and episode
-- decide only where one of two airings has none. An episode recorded from now on is
-- also remembered as `nsxe:<show>|<season>|<episode>` when it had no programme id, which
-- airings with an id look up. Episodes remembered before cannot tell whether theirs had
-- one: each gets that key too, so an airing with an id still takes it for recorded, as
-- before this version (no episode is recorded twice for the change).
INSERT OR IGNORE INTO recorded_episodes (episode_key, recorded_at)
  SELECT 'nsxe:' || substr(episode_key, 5), recorded_at FROM recorded_episodes WHERE episode_key LIKE 'sxe:%';
