/**
 * The DVR's resources as the management interface answers them (sources, guides, guide
 * programmes, job references): one TypeBox schema each, for validation, serialization
 * and the OpenAPI document, as library.schemas.ts is for interface A. Rules have
 * theirs in rule.schemas.ts (their logic in dvr/planning/rules/, one module per type).
 */
import { Type } from '@sinclair/typebox';

/** Why a refresh was not applied (decided in src/dvr/sources/refresh-checks.ts). */
export const REJECTION_KINDS = ['unreadable', 'not_recognised', 'incomplete', 'empty', 'shrinks'] as const;
export type RejectionKind = (typeof REJECTION_KINDS)[number];

/**
 * Why a refresh was not applied, and whether confirming it would apply it: on a refresh's answer, and on the source or
 * guide while its error stands.
 */
const HeldFields = {
  rejected: Type.Optional(
    Type.Union(
      REJECTION_KINDS.map((kind) => Type.Literal(kind)),
      {
        description:
          'unreadable: the fetch failed; not_recognised: not a playlist / not XMLTV (a web page, an empty body); incomplete: an XMLTV document cut short; ' +
          'empty: nothing where the last good refresh had something; shrinks: more than half would go (channels, or programmes not yet ended)',
      },
    ),
  ),
  needs_confirmation: Type.Optional(
    Type.Boolean({ description: 'true when the refresh is believable but removes much: ?accept=true applies it' }),
  ),
};

const LAST_GOOD =
  'epoch milliseconds of the last refresh that was applied (one that failed or was not applied leaves it as it was)';
const WHY_NOT =
  'why the last refresh was not applied (what the last good one gave is kept); absent once one is applied';

export const SourceSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.Union([Type.Literal('m3u'), Type.Literal('hdhomerun')]),
    location: Type.String(),
    name: Type.String(),
    streams: Type.Integer({ description: 'simultaneous streams allowed (tuners)' }),
    origin: Type.Union([Type.Literal('config'), Type.Literal('managed')], {
      description: 'config: from flags or the config file; managed: added here',
    }),
    refreshed_at: Type.Optional(Type.Integer({ description: LAST_GOOD })),
    error: Type.Optional(Type.String({ description: WHY_NOT })),
    skipped: Type.Integer({ description: 'malformed entries skipped at the last good refresh' }),
    channels: Type.Integer({ description: 'channels read at the last good refresh' }),
    ...HeldFields,
  },
  { title: 'Source' },
);
export const GuideSchema = Type.Object(
  {
    id: Type.String(),
    location: Type.String(),
    origin: Type.Union([Type.Literal('config'), Type.Literal('managed')]),
    refreshed_at: Type.Optional(Type.Integer({ description: LAST_GOOD })),
    error: Type.Optional(Type.String({ description: WHY_NOT })),
    programmes: Type.Integer({ description: 'programmes read at the last good refresh' }),
    skipped: Type.Integer({ description: 'malformed entries skipped at the last good refresh' }),
    priority: Type.Integer({
      description:
        'lower first: where guides describe one channel, the first in this order gives its programmes (PATCH /dvr/guides/:id)',
    }),
    ...HeldFields,
  },
  { title: 'Guide' },
);
export const AiringSchema = Type.Object(
  {
    start_time: Type.Integer(),
    end_time: Type.Integer(),
    title: Type.String(),
    episode_title: Type.Optional(Type.String()),
    season_number: Type.Optional(Type.Integer()),
    episode_number: Type.Optional(Type.Integer()),
    summary: Type.Optional(Type.String()),
    categories: Type.Optional(Type.Array(Type.String())),
    original_air_date: Type.Optional(Type.String()),
    new: Type.Boolean(),
    content_rating: Type.Optional(Type.String()),
    image_url: Type.Optional(Type.String()),
    program_id: Type.Optional(Type.String()),
    series_id: Type.Optional(Type.String()),
    placeholder: Type.Optional(
      Type.Boolean({ description: 'an hour block named after a channel no guide describes (recordable by its time)' }),
    ),
  },
  { title: 'Programme' },
);
export const JobRef = Type.Object({
  id: Type.String(),
  name: Type.String(),
  start_time: Type.Integer(),
  end_time: Type.Integer(),
  channel: Type.Optional(Type.String()),
  file_id: Type.Optional(
    Type.String({
      description: 'GET /dvr/channels/:n/recording: the file (library item) it records into, once bytes came',
    }),
  ),
  file_begins_at: Type.Optional(
    Type.Integer({ description: 'epoch seconds: the moment the file begins with (its start over point of reference)' }),
  ),
});

/** `GET /dvr/jobs/:id/why`: what becomes of a job, in one sentence. */
export const JobWhySchema = Type.Object(
  {
    id: Type.String(),
    outcome: Type.Union([
      Type.Literal('will_record'),
      Type.Literal('skipped'),
      Type.Literal('recording'),
      Type.Literal('recorded'),
      Type.Literal('failed'),
    ]),
    why: Type.String({ description: 'one sentence: when and where it records, or why it will not, or why it failed' }),
  },
  { additionalProperties: false, title: 'Job explanation' },
);

/** `GET /dvr`: where the DVR records, the free space there, and the folders it imports. */
export const DvrInfoSchema = Type.Object(
  {
    path: Type.String({ description: 'the recordings directory' }),
    version: Type.String(),
    disk: Type.Optional(
      Type.Object({ total: Type.Integer({ description: 'bytes' }), free: Type.Integer({ description: 'bytes' }) }),
    ),
    roots: Type.Optional(
      Type.Array(Type.Object({ kind: Type.String({ description: 'tv, movies or videos' }), path: Type.String() }), {
        description: 'the import folders scanned',
      }),
    ),
  },
  { title: 'DVR' },
);
/** `POST /dvr/sources`'s body. */
export const SourceBodySchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('m3u'), Type.Literal('hdhomerun')]),
    location: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'M3U: a file path or URL; HDHomeRun: its address (host, host:port or URL)',
    }),
    streams: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, description: 'M3U only: simultaneous streams allowed (default 2)' }),
    ),
  },
  { additionalProperties: false },
);
/** A refresh's fields when it was not applied; absent when it was. */
const NotApplied = {
  error: Type.Optional(
    Type.String({ description: 'why this refresh was not applied (stored as the source or guide’s error too)' }),
  ),
  ...HeldFields,
};
/** One source's refresh: what it read, or why it was not applied. */
export const SourceRefreshSchema = Type.Object(
  { id: Type.String(), channels: Type.Optional(Type.Integer()), skipped: Type.Optional(Type.Integer()), ...NotApplied },
  { title: 'Source refresh' },
);
/** One guide's refresh: what it read, or why it was not applied. */
export const GuideRefreshSchema = Type.Object(
  {
    id: Type.String(),
    programmes: Type.Optional(Type.Integer()),
    skipped: Type.Optional(Type.Integer()),
    ...NotApplied,
  },
  { title: 'Guide refresh' },
);
/** `POST /dvr/refresh`'s answer: what each source and guide read, or why it was not applied. */
export const RefreshResultSchema = Type.Object({
  sources: Type.Array(SourceRefreshSchema),
  guides: Type.Array(GuideRefreshSchema),
});
/** `POST /dvr/sources/:id/refresh`'s and `POST /dvr/guides/:id/refresh`'s query. */
export const RefreshQuerySchema = Type.Object(
  {
    accept: Type.Optional(
      Type.Boolean({
        description:
          'the user confirms: apply a refresh that is empty or would remove more than half of what is there (never one that failed or is malformed)',
      }),
    ),
  },
  { additionalProperties: false },
);
/** `POST /dvr/scans`'s answer: the import roots queued. */
export const ScansQueuedSchema = Type.Object({
  roots: Type.Array(Type.Object({ kind: Type.String(), path: Type.String() })),
});
