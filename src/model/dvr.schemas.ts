/**
 * The DVR's resources as the management interface answers them (sources, guides, guide
 * programmes, job references): one TypeBox schema each, for validation, serialization
 * and the OpenAPI document, as library.schemas.ts is for interface A. Rules have
 * theirs in dvr/rules/ (one module per type).
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
