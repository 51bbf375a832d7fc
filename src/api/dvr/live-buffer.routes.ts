/**
 * A channel's live buffer as HLS (src/dvr/live/): the media playlist of everything held
 * since the channel was tuned, with the time each segment arrived, and its segments as
 * received. Any HLS player pauses, seeks back and returns to live with it; the first
 * request tunes the channel (sharing the recordings' connection).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DvrService } from '../../dvr/dvr.service.js';
import { ErrorSchema } from '../../http/error-reply.js';
import { HlsSkipParam, liveSegment, PLAYLIST_TYPE, playlist, viewerOf } from '../hls.routes.js';
import { TAGS } from '../openapi-tags.js';

const ChannelNumber = Type.String({
  pattern: '^\\d{1,5}([.-]\\d{1,5})?$',
  description: 'a channel number such as 12 or 12.1',
});
const Errors = { 400: ErrorSchema, 404: ErrorSchema, 503: ErrorSchema };

export function registerLiveBufferRoutes(app: FastifyInstance, deps: { dvr: DvrService }): void {
  const { dvr } = deps;
  const tags = [TAGS.media];
  const number = (request: FastifyRequest) => (request.params as { number: string }).number.replace('-', '.');
  app.get(
    '/devices/ANY/channels/:number/buffer.m3u8',
    {
      schema: {
        summary: "A channel's live buffer: every segment since it was tuned (up to its depth), each with its time",
        description:
          'HLS media playlist without an end: a player starts near live and can pause and seek back through the whole ' +
          'buffer. Segments are the channel as received (remux-free), each starting at a keyframe; the last one ' +
          'listed is under way, and is sent as it arrives.',
        tags,
        params: Type.Object({ number: ChannelNumber }),
        querystring: Type.Object(
          {
            client: Type.Optional(
              Type.Literal('browser', {
                description: 'a 409 needs_transcode when a browser cannot play the channel as it is (MPEG-2, AC-3)',
              }),
            ),
            from: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: 8.64e15,
                description:
                  'epoch milliseconds: the playlist begins with the segment under way then (the oldest held when ' +
                  'earlier; the newest when later): a player that starts at the first segment plays from that moment',
              }),
            ),
            _HLS_skip: HlsSkipParam,
          },
          { additionalProperties: false },
        ),
        response: { ...Errors, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const query = request.query as { client?: string; from?: number; _HLS_skip?: string };
      const text = await dvr.livePlaylist(number(request), query.client === 'browser', viewerOf(request), query.from, {
        skip: query._HLS_skip !== undefined,
      });
      return playlist(reply.type(PLAYLIST_TYPE), text);
    },
  );
  app.get(
    '/devices/ANY/channels/:number/buffer/:segment',
    {
      schema: {
        summary: "One segment of a channel's live buffer",
        tags,
        params: Type.Object({
          number: ChannelNumber,
          segment: Type.String({ pattern: '^\\d{1,12}\\.ts$', description: 'a segment the buffer playlist lists' }),
        }),
        response: Errors,
      },
    },
    async (request, reply) => {
      const name = (request.params as { segment: string }).segment;
      return liveSegment(reply, dvr.liveSegment(number(request), Number.parseInt(name, 10)));
    },
  );
}
