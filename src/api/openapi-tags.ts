/** The groups /api/docs shows the server's routes in, in this order. */
export const TAGS = {
  library: 'Library',
  management: 'Management',
  dvr: 'DVR',
  media: 'Media',
  players: 'Players and events',
  status: 'Status',
} as const;

export const OPENAPI_TAGS = [
  {
    name: TAGS.library,
    description:
      'Interface A: the read-only library (shows, episodes, movies, videos, collections, playlists, jobs, channels)',
  },
  {
    name: TAGS.management,
    description: 'Changes to the library: watch state, favorites and labels, collections, playlists, deletes, scans',
  },
  {
    name: TAGS.dvr,
    description:
      'Recording rules (the Antenna app calls them passes), jobs, channel sources, guides, channels and record-now',
  },
  { name: TAGS.media, description: 'Bytes: media files, live TV, artwork and thumbnails' },
  {
    name: TAGS.players,
    description:
      'The players this server knows (registration, heartbeats, Play on…) and what happened: the event feed, webhooks, MQTT',
  },
  { name: TAGS.status, description: 'What the server is doing' },
];
