/**
 * Antenna as a source for other players (issue 21): the lineup as M3U and its guide as
 * XMLTV under /devices/ANY, and an HDHomeRun tuner's face (discover.json, lineup.json,
 * lineup_status.json) so Plex, Jellyfin and Emby add Antenna as a network tuner by its
 * address. Every stream URL is Antenna's live route. Reads: open like the other reads.
 */
import { Readable } from 'node:stream';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hdhomerunLineup, m3uOf, tunerDescription, xmltvDocument } from '../../dvr/lineup/lineup-export.js';
import type { LineupService } from '../../dvr/lineup/lineup.service.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema } from '../../http/error-reply.js';
import { VERSION } from '../../version.js';
import { TAGS } from '../openapi-tags.js';

export interface LineupRoutesDeps {
  lineup: LineupService;
  baseUrl: (request: FastifyRequest) => string;
}

const DAY = 86_400;
const M3uQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Literal('ts', {
        description: 'stream URLs that answer MPEG-TS (they always do): accepted for players that ask',
      }),
    ),
    codec: Type.Optional(
      Type.Literal('copy', {
        description: 'the channels as the source sends them (they always are): accepted for players that ask',
      }),
    ),
  },
  { additionalProperties: true },
);
const XmltvQuery = Type.Object(
  {
    duration: Type.Optional(
      Type.Integer({ minimum: 3600, maximum: 28 * DAY, description: 'seconds of guide from now (default 14 days)' }),
    ),
  },
  { additionalProperties: true },
);
const TunerSchema = Type.Object({
  FriendlyName: Type.String(),
  Manufacturer: Type.String(),
  ModelNumber: Type.String(),
  FirmwareName: Type.String(),
  FirmwareVersion: Type.String(),
  DeviceID: Type.String({ description: '8 hex digits, stable for this data directory' }),
  DeviceAuth: Type.String(),
  BaseURL: Type.String(),
  LineupURL: Type.String(),
  TunerCount: Type.Integer({ description: 'the streams the sources allow at once, together' }),
});
const LineupSchema = Type.Array(
  Type.Object({
    GuideNumber: Type.String(),
    GuideName: Type.String(),
    URL: Type.String(),
    HD: Type.Optional(Type.Literal(1)),
  }),
);
const LineupStatusSchema = Type.Object({
  ScanInProgress: Type.Integer(),
  ScanPossible: Type.Integer(),
  Source: Type.String(),
  SourceList: Type.Array(Type.String()),
});

const text = (type: string, description: string) => ({ description, content: { [type]: { schema: Type.String() } } });
const NO_CACHE = { ...CORS_HEADERS, 'cache-control': 'no-cache' };

export function registerLineupRoutes(app: FastifyInstance, { lineup, baseUrl }: LineupRoutesDeps): void {
  const streamUrl = (request: FastifyRequest) => {
    const base = baseUrl(request);
    return (number: string) => `${base}/devices/ANY/channels/${encodeURIComponent(number)}/stream.mpg`;
  };

  app.get(
    '/devices/ANY/channels.m3u',
    {
      schema: {
        summary:
          "The lineup as an M3U playlist for other players: Antenna's channel names, numbers and logos, streams through Antenna",
        tags: [TAGS.dvr],
        querystring: M3uQuery,
        response: { 200: text('audio/x-mpegurl', 'the playlist'), 400: ErrorSchema },
      },
    },
    (request, reply) =>
      reply
        .headers({ ...NO_CACHE, 'content-type': 'audio/x-mpegurl; charset=utf-8' })
        .send(m3uOf(lineup.channels(), streamUrl(request))),
  );

  app.get(
    '/devices/ANY/guide/xmltv',
    {
      schema: {
        summary: "The guide of the lineup's channels as XMLTV (channel ids as in channels.m3u), streamed",
        tags: [TAGS.dvr],
        querystring: XmltvQuery,
        response: { 200: text('application/xml', 'the XMLTV document'), 400: ErrorSchema },
      },
    },
    (request, reply) => {
      const { duration = 14 * DAY } = request.query as Static<typeof XmltvQuery>;
      const channels = lineup.channels();
      const document = Readable.from(xmltvDocument(channels, lineup.programmes(duration, channels)), {
        objectMode: false,
      });
      return reply.headers({ ...NO_CACHE, 'content-type': 'application/xml; charset=utf-8' }).send(document);
    },
  );

  // ---------------------------------------------------------------- an HDHomeRun tuner's face
  app.get(
    '/discover.json',
    {
      schema: {
        summary: 'Antenna described as an HDHomeRun tuner (Plex, Jellyfin and Emby add it by address)',
        tags: [TAGS.dvr],
        response: { 200: TunerSchema },
      },
    },
    (request, reply) =>
      reply.headers(NO_CACHE).send(tunerDescription(baseUrl(request), lineup.deviceId(), lineup.tunerCount(), VERSION)),
  );
  app.get(
    '/lineup.json',
    {
      schema: {
        summary: 'The lineup as an HDHomeRun tuner lists it',
        tags: [TAGS.dvr],
        response: { 200: LineupSchema },
      },
    },
    (request, reply) => reply.headers(NO_CACHE).send(hdhomerunLineup(lineup.channels(), streamUrl(request))),
  );
  app.get(
    '/lineup_status.json',
    {
      schema: {
        summary: 'An HDHomeRun tuner’s scan status: never scanning (the lineup comes from Antenna’s sources)',
        tags: [TAGS.dvr],
        response: { 200: LineupStatusSchema },
      },
    },
    (_request, reply) =>
      reply.headers(NO_CACHE).send({ ScanInProgress: 0, ScanPossible: 0, Source: 'Cable', SourceList: ['Cable'] }),
  );
}
