/**
 * The DVR's resources as the management interface answers them (sources, guides, guide
 * programmes, job references): one TypeBox schema each, for validation, serialization
 * and the OpenAPI document, as library.schemas.ts is for interface A. Rules have
 * theirs in rule.schemas.ts (their logic in dvr/rules/, one module per type).
 */
import { Type } from '@sinclair/typebox';

export const SourceSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.Union([Type.Literal('m3u'), Type.Literal('hdhomerun')]),
    location: Type.String(),
    name: Type.String(),
    streams: Type.Integer({ description: 'simultaneous streams allowed (tuners)' }),
    origin: Type.Union([Type.Literal('config'), Type.Literal('managed')], { description: 'config: from flags or the config file; managed: added here' }),
    refreshed_at: Type.Optional(Type.Integer({ description: 'epoch milliseconds' })),
    error: Type.Optional(Type.String({ description: 'why the last refresh failed' })),
    skipped: Type.Integer({ description: 'malformed entries skipped at the last refresh' }),
    channels: Type.Integer({ description: 'channels read at the last good refresh' }),
  },
  { title: 'Source' },
);
export const GuideSchema = Type.Object(
  {
    id: Type.String(),
    location: Type.String(),
    origin: Type.Union([Type.Literal('config'), Type.Literal('managed')]),
    refreshed_at: Type.Optional(Type.Integer()),
    error: Type.Optional(Type.String()),
    programmes: Type.Integer(),
    skipped: Type.Integer({ description: 'malformed entries skipped at the last refresh' }),
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
  },
  { title: 'Programme' },
);
export const JobRef = Type.Object({ id: Type.String(), name: Type.String(), start_time: Type.Integer(), end_time: Type.Integer(), channel: Type.Optional(Type.String()) });

/** `GET /dvr/jobs/:id/why`: what becomes of a job, in one sentence. */
export const JobWhySchema = Type.Object(
  {
    id: Type.String(),
    outcome: Type.Union([Type.Literal('will_record'), Type.Literal('skipped'), Type.Literal('recording'), Type.Literal('recorded'), Type.Literal('failed')]),
    why: Type.String({ description: 'one sentence: when and where it records, or why it will not, or why it failed' }),
  },
  { additionalProperties: false, title: 'Job explanation' },
);

/** `GET /dvr`: where the DVR records, the free space there, and the folders it imports. */
export const DvrInfoSchema = Type.Object(
  {
    path: Type.String({ description: 'the recordings directory' }),
    version: Type.String(),
    disk: Type.Optional(Type.Object({ total: Type.Integer({ description: 'bytes' }), free: Type.Integer({ description: 'bytes' }) })),
    roots: Type.Optional(Type.Array(Type.Object({ kind: Type.String({ description: 'tv, movies or videos' }), path: Type.String() }), { description: 'the import folders scanned' })),
  },
  { title: 'DVR' },
);
/** `POST /dvr/sources`'s body. */
export const SourceBodySchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('m3u'), Type.Literal('hdhomerun')]),
    location: Type.String({ minLength: 1, maxLength: 2048, description: 'M3U: a file path or URL; HDHomeRun: its address (host, host:port or URL)' }),
    streams: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'M3U only: simultaneous streams allowed (default 2)' })),
  },
  { additionalProperties: false },
);
/** `POST /dvr/refresh`'s answer: what each source and guide read, or why it failed. */
export const RefreshResultSchema = Type.Object({
  sources: Type.Array(Type.Object({ id: Type.String(), channels: Type.Optional(Type.Integer()), skipped: Type.Optional(Type.Integer()), error: Type.Optional(Type.String()) })),
  guides: Type.Array(Type.Object({ id: Type.String(), programmes: Type.Optional(Type.Integer()), skipped: Type.Optional(Type.Integer()), error: Type.Optional(Type.String()) })),
});
/** `POST /dvr/scans`'s answer: the import roots queued. */
export const ScansQueuedSchema = Type.Object({ roots: Type.Array(Type.Object({ kind: Type.String(), path: Type.String() })) });
