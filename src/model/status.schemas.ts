/** `GET /status`'s answer: the server's route serializes it, the web app reads its type. */
import { type Static, Type } from '@sinclair/typebox';
import { WebhookProblemSchema } from './events/webhook.schemas.js';

const Count = Type.Integer({ minimum: 0 });
/** Problems listed in /status; the count says how many there are in all. */
export const PROBLEMS_SHOWN = 100;
const Problem = Type.Object({ path: Type.String(), reason: Type.String() });

/** Who is not being told what happens: each failing receiver once, however many deliveries failed. */
export const EventsStatusSchema = Type.Object(
  {
    webhooks_failing: Type.Array(WebhookProblemSchema, {
      description: 'webhooks whose last attempt failed (their deliveries are retried)',
    }),
    mqtt: Type.Optional(
      Type.Object(
        {
          url: Type.String({ description: 'the broker, credentials redacted' }),
          connected: Type.Boolean(),
          error: Type.Optional(Type.String({ description: 'why it is not, while it is not' })),
          since: Type.Optional(Type.Integer({ description: 'epoch ms it stopped answering' })),
        },
        { description: 'the MQTT broker (--mqtt), when one is set' },
      ),
    ),
  },
  { description: 'webhooks and MQTT' },
);
export type EventsStatus = Static<typeof EventsStatusSchema>;

export const StatusSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    uptime: Type.Number({ description: 'seconds since the server started' }),
    library: Type.Object({
      shows: Count,
      episodes: Count,
      movies: Count,
      video_groups: Count,
      videos: Count,
      collections: Count,
      playlists: Count,
      jobs: Count,
      channels: Count,
    }),
    cache: Type.Object(
      {
        entries: Count,
        bytes: Count,
        hits: Count,
        misses: Count,
        front_hits: Type.Integer({ minimum: 0, description: 'hits answered before routing (included in hits)' }),
      },
      { description: 'interface A response cache: a miss is one query and serialization' },
    ),
    scan: Type.Optional(
      Type.Object(
        {
          running: Type.Boolean(),
          phase: Type.String({ description: 'idle, walking, importing, probing, thumbnails or done' }),
          files_seen: Type.Integer({ minimum: 0, description: 'media files the walk has found' }),
          probed: Type.Integer({ minimum: 0, description: 'files probed in the probing under way (or the last)' }),
          to_probe: Type.Integer({ minimum: 0, description: 'files waiting for a probe' }),
          thumbnails: Type.Integer({ minimum: 0, description: 'thumbnails made in the work under way (or the last)' }),
          to_thumbnail: Type.Integer({
            minimum: 0,
            description: 'files waiting for a thumbnail (those not probed yet included)',
          }),
          files_per_second: Type.Optional(
            Type.Number({
              minimum: 0,
              description:
                "the phase's rate over the last seconds: files walked, probed or given a thumbnail per second",
            }),
          ),
          seconds_left: Type.Optional(
            Type.Integer({
              minimum: 0,
              description:
                'estimated seconds until the phase under way (probing, or thumbnails) is done; absent while walking, before a rate is measured, or stalled',
            }),
          ),
          last: Type.Optional(
            Type.Object({
              finished_at: Type.Integer({ description: 'epoch milliseconds' }),
              added: Count,
              updated: Count,
              moved: Count,
              removed: Count,
              unchanged: Count,
              failed: Count,
              duration_ms: Count,
              problems: Type.Array(Problem, {
                description: `what the scan could not import and why (links leading outside the roots, unreadable folders, files that are not media); the first ${PROBLEMS_SHOWN}`,
              }),
            }),
          ),
          not_media: Type.Object(
            {
              count: Count,
              files: Type.Array(Type.Object({ id: Type.String(), path: Type.String(), reason: Type.String() }), {
                description: `the first ${PROBLEMS_SHOWN} by path`,
              }),
            },
            { description: 'files in the library that ffprobe could not read: listed here, never served' },
          ),
        },
        { description: 'the importer: the scan in progress, and the last one finished' },
      ),
    ),
    dvr: Type.Optional(
      Type.Object(
        {
          recording: Type.Array(Type.String(), { description: 'ids of the jobs recording now' }),
          recording_files: Type.Array(Type.String(), {
            description: 'ids of the files (library items) those jobs are writing',
          }),
          refreshing: Type.Boolean({ description: 'sources and guides are being read' }),
          streams: Type.Array(
            Type.Object({
              channel: Type.String(),
              source: Type.String(),
              recordings: Type.Integer(),
              viewers: Type.Integer(),
              bytes: Type.Integer(),
            }),
            { description: 'upstream connections open now; recordings and viewers of a channel share one' },
          ),
        },
        { description: 'the DVR' },
      ),
    ),
    events: Type.Optional(EventsStatusSchema),
  },
  { title: 'Status' },
);
