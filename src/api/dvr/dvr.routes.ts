/**
 * The DVR's part of the management interface: rules, sources, guides, channels,
 * jobs and "record now", plus live TV (`/devices/ANY/channels/:number/stream.mpg`).
 * Handlers check parameters and call DvrService; errors are the usual JSON answers.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, NotFoundError } from '../../common/errors.js';
import type { DvrService } from '../../dvr/dvr.service.js';
import {
  RuleDefinitionSchema,
  RuleSchema,
  type RuleDefinition,
  ruleTypeInfos,
} from '../../dvr/planning/rules/rule-types.js';
import { RuleTypeInfoSchema } from '../../model/dvr/rule.schemas.js';
import {
  AiringSchema,
  GuideRefreshSchema,
  GuideSchema,
  JobRef,
  JobWhySchema,
  RefreshQuerySchema,
  RefreshResultSchema,
  SourceBodySchema,
  SourceRefreshSchema,
  SourceSchema,
} from '../../model/dvr/dvr.schemas.js';
import {
  GUIDE_DEFAULT_LIMIT,
  GUIDE_MAX_WINDOW,
  GuidePageQuery,
  GuidePageSchema,
} from '../../model/dvr/guide-page.schemas.js';
import { airingOut, guideOut, jobRef, ruleOut, sourceOut } from '../../dvr/dvr-resource-mappers.js';
import { StreamUnavailableError } from '../../dvr/recording/stream-hub.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { type ErrorBody, ErrorSchema, StorageErrors, sendError } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';
import { jsonReply as json } from '../json-reply.js';

export interface DvrRoutesDeps {
  dvr: DvrService;
}

const Errors = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, ...StorageErrors };
const RuleParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$', description: 'a rule id' }) });
const NumberParams = Type.Object({
  number: Type.String({ pattern: '^\\d{1,5}([.-]\\d{1,5})?$', description: 'a channel number such as 12 or 12.1' }),
});
const Location = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'a file path on the server or an http(s) URL',
});

const noContent = (reply: FastifyReply) => reply.headers(CORS_HEADERS).code(204).send();

export function registerDvrRoutes(app: FastifyInstance, deps: DvrRoutesDeps): void {
  const { dvr } = deps;
  const ruleId = (request: FastifyRequest) => Number((request.params as { id: string }).id);
  const number = (request: FastifyRequest) => (request.params as { number: string }).number.replace('-', '.');
  const tags = [TAGS.dvr];

  // ---------------------------------------------------------------- rules
  const ruleTypes = ruleTypeInfos();
  app.get(
    '/dvr/rule-types',
    {
      schema: {
        summary:
          'The kinds of recording rule (passes) this server knows, with the fields of each: what a form for a rule is drawn from',
        tags,
        response: { 200: Type.Array(RuleTypeInfoSchema) },
      },
    },
    (_request, reply) => json(reply, 200, ruleTypes),
  );
  app.get(
    '/dvr/rules',
    { schema: { summary: 'List recording rules', tags, response: { 200: Type.Array(RuleSchema), 401: ErrorSchema } } },
    (_request, reply) => json(reply, 200, dvr.listRules().map(ruleOut)),
  );
  app.post(
    '/dvr/rules',
    {
      schema: {
        summary: 'Add a recording rule; jobs are planned at once',
        tags,
        body: RuleDefinitionSchema,
        response: { 201: RuleSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 201, ruleOut(dvr.addRule(request.body as RuleDefinition))),
  );
  app.get(
    '/dvr/rules/:id',
    { schema: { summary: 'A recording rule', tags, params: RuleParams, response: { 200: RuleSchema, ...Errors } } },
    (request, reply) => json(reply, 200, ruleOut(dvr.rule(ruleId(request)))),
  );
  app.put(
    '/dvr/rules/:id',
    {
      schema: {
        summary: 'Replace a recording rule; jobs are planned again',
        tags,
        params: RuleParams,
        body: RuleDefinitionSchema,
        response: { 200: RuleSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, ruleOut(dvr.replaceRule(ruleId(request), request.body as RuleDefinition))),
  );
  app.delete(
    '/dvr/rules/:id',
    {
      schema: {
        summary: 'Remove a recording rule (its recordings stay; one recording now goes on)',
        tags,
        params: RuleParams,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      dvr.removeRule(ruleId(request));
      return noContent(reply);
    },
  );

  // ---------------------------------------------------------------- jobs
  const JobParams = Type.Object({
    id: Type.String({ pattern: '^[0-9]{1,12}-[0-9]{1,15}$', description: '<start>-<n> (see the README on job ids)' }),
  });
  app.get(
    '/dvr/jobs/:id/why',
    {
      schema: {
        summary: 'What becomes of a job, in one sentence: when and where it records, or why it will not or did not',
        tags,
        params: JobParams,
        response: { 200: JobWhySchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, dvr.explainJob((request.params as { id: string }).id)),
  );

  app.delete(
    '/dvr/jobs/:id',
    {
      schema: {
        summary: 'Skip a planned job, or stop one that is recording (it keeps what it wrote)',
        tags,
        params: JobParams,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      dvr.cancelJob((request.params as { id: string }).id);
      return noContent(reply);
    },
  );

  // ---------------------------------------------------------------- sources and guides
  app.get(
    '/dvr/sources',
    {
      schema: {
        summary: 'Channel sources (M3U playlists, HDHomeRun tuners)',
        tags,
        response: { 200: Type.Array(SourceSchema), 401: ErrorSchema },
      },
    },
    (_r, reply) => json(reply, 200, dvr.listSources().map(sourceOut)),
  );
  app.post(
    '/dvr/sources',
    {
      schema: {
        summary: 'Add a source and read its channels',
        tags,
        body: SourceBodySchema,
        response: { 201: SourceSchema, ...Errors },
      },
    },
    async (request, reply) => {
      const source = await dvr.addSource(request.body as Static<typeof SourceBodySchema>);
      return json(reply, 201, sourceOut(source));
    },
  );
  app.delete(
    '/dvr/sources/:id',
    {
      schema: {
        summary: 'Remove a source and its channels',
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      dvr.removeSource((request.params as { id: string }).id);
      return noContent(reply);
    },
  );
  app.get(
    '/dvr/guides',
    { schema: { summary: 'XMLTV guides', tags, response: { 200: Type.Array(GuideSchema), 401: ErrorSchema } } },
    (_r, reply) => json(reply, 200, dvr.listGuides().map(guideOut)),
  );
  app.post(
    '/dvr/guides',
    {
      schema: {
        summary: 'Add an XMLTV guide (file path or URL, gzip too) and read it',
        tags,
        body: Type.Object({ location: Location }, { additionalProperties: false }),
        response: { 201: GuideSchema, ...Errors },
      },
    },
    async (request, reply) => {
      const guide = await dvr.addGuide((request.body as { location: string }).location);
      return json(reply, 201, guideOut(guide));
    },
  );
  app.delete(
    '/dvr/guides/:id',
    {
      schema: {
        summary: 'Remove a guide and its programmes',
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      dvr.removeGuide((request.params as { id: string }).id);
      return noContent(reply);
    },
  );
  const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;
  const accept = (request: FastifyRequest) => (request.query as { accept?: boolean }).accept === true;
  const notApplied =
    'Not applied (200, with `error`, `rejected` and the reason stored on it; what the last good refresh gave is kept) when the read fails, is not the expected format, ' +
    'is cut short, is empty where the last one was not, or would remove more than half of what is there; `?accept=true` applies the last two.';
  app.post(
    '/dvr/sources/:id/refresh',
    {
      schema: {
        summary: "Read a source's channels again now, then plan jobs",
        description: `${notApplied} More than half: of the source's channels, by number.`,
        tags,
        params: IdParams,
        querystring: RefreshQuerySchema,
        response: { 200: SourceRefreshSchema, ...Errors },
      },
    },
    async (request, reply) => json(reply, 200, await dvr.refreshSource(id(request), accept(request))),
  );
  app.post(
    '/dvr/guides/:id/refresh',
    {
      schema: {
        summary: "Read a guide's programmes again now, then plan jobs",
        description: `${notApplied} More than half: of the guide's programmes that have not ended yet.`,
        tags,
        params: IdParams,
        querystring: RefreshQuerySchema,
        response: { 200: GuideRefreshSchema, ...Errors },
      },
    },
    async (request, reply) => json(reply, 200, await dvr.refreshGuide(id(request), accept(request))),
  );
  app.post(
    '/dvr/refresh',
    {
      schema: {
        summary: 'Read every source and guide again now, then plan jobs',
        description:
          'Each is applied only when believable, as POST /dvr/sources/:id/refresh says; this never confirms a change (no accept).',
        tags,
        response: { 200: RefreshResultSchema, 401: ErrorSchema, ...StorageErrors },
      },
    },
    async (_request, reply) => json(reply, 200, await dvr.refresh()),
  );

  // ---------------------------------------------------------------- channels
  for (const [method, favorite, summary] of [
    ['PUT', true, 'Make a channel a favorite'],
    ['DELETE', false, 'Make a channel no longer a favorite'],
  ] as const) {
    app.route({
      method,
      url: '/dvr/channels/:number/favorite',
      schema: { summary, tags, params: NumberParams, response: { 204: Type.Null(), ...Errors } },
      handler: (request, reply) => {
        dvr.lineupEdits.setFavorite(number(request), favorite);
        return noContent(reply);
      },
    });
  }
  app.get(
    '/dvr/channels/:number/guide',
    {
      schema: {
        summary: "A channel's programmes between two times (default: the next 24 hours)",
        tags,
        params: NumberParams,
        querystring: Type.Object(
          {
            from: Type.Optional(Type.Integer({ minimum: 0, maximum: 253402300799, description: 'epoch seconds' })),
            to: Type.Optional(Type.Integer({ minimum: 0, maximum: 253402300799, description: 'epoch seconds' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(AiringSchema), ...Errors },
      },
    },
    (request, reply) => {
      const query = request.query as { from?: number; to?: number };
      const from = query.from ?? Math.floor(Date.now() / 1000);
      const to = query.to ?? from + 86400;
      if (to - from > 15 * 86400) throw new BadRequestError('to', 'Ask for at most 15 days at once.');
      return json(reply, 200, dvr.live.guide(number(request), from, to).map(airingOut));
    },
  );
  app.get(
    '/dvr/channels/:number/recording',
    {
      schema: {
        summary: 'What is recording this channel now (404 not_recording when nothing is)',
        tags,
        params: NumberParams,
        response: { 200: JobRef, ...Errors },
      },
    },
    (request, reply) => {
      const job = dvr.live.recordingOn(number(request));
      if (!job)
        return sendError(reply, {
          status: 404,
          code: 'not_recording',
          message: `Nothing is recording channel ${number(request)} now.`,
        });
      return json(reply, 200, { ...jobRef(job), ...dvr.live.recordingFile(job.id) });
    },
  );
  app.post(
    '/dvr/channels/:number/recording',
    {
      schema: {
        summary:
          'Record what is on this channel now, from its start when the live buffer holds it, until its programme ends (the player’s toggle_record)',
        tags,
        params: NumberParams,
        response: { 201: JobRef, ...Errors },
      },
    },
    async (request, reply) => {
      const job = await dvr.live.recordNow(number(request));
      return json(reply, 201, jobRef(job));
    },
  );
  app.delete(
    '/dvr/channels/:number/recording',
    {
      schema: {
        summary: 'Stop what is recording this channel now (it keeps what it wrote)',
        tags,
        params: NumberParams,
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      if (!dvr.live.stopRecording(number(request))) {
        return sendError(reply, {
          status: 404,
          code: 'not_recording',
          message: `Nothing is recording channel ${number(request)} now.`,
        });
      }
      return noContent(reply);
    },
  );

  app.get(
    '/dvr/guide',
    {
      schema: {
        summary:
          'A page of the guide grid: channels in number order with their programmes in a window (default: what is on now)',
        tags,
        querystring: GuidePageQuery,
        response: { 200: GuidePageSchema, ...Errors },
      },
    },
    (request, reply) => {
      const query = request.query as {
        start?: number;
        end?: number;
        offset?: number;
        limit?: number;
        favorites?: boolean;
      };
      const start = query.start ?? Math.floor(Date.now() / 1000);
      const end = query.end ?? start + 1;
      if (end - start > GUIDE_MAX_WINDOW)
        throw new BadRequestError(
          'end',
          `Ask for at most ${GUIDE_MAX_WINDOW / 3600} hours at once: "end" - "start" is ${end - start} seconds.`,
        );
      const page = {
        start,
        end,
        offset: query.offset ?? 0,
        limit: query.limit ?? GUIDE_DEFAULT_LIMIT,
        favorites: query.favorites === true,
      };
      return json(reply, 200, dvr.live.guidePage(page));
    },
  );
  app.get(
    '/dvr/guide/channels',
    {
      schema: {
        summary: "The guides' channels (XMLTV ids, names, numbers, icons)",
        tags,
        response: {
          200: Type.Array(
            Type.Object({
              guide_id: Type.String(),
              id: Type.String(),
              names: Type.Array(Type.String()),
              number: Type.Optional(Type.String()),
              icon: Type.Optional(Type.String()),
            }),
          ),
        },
      },
    },
    (_request, reply) => json(reply, 200, dvr.live.guideChannels()),
  );
  app.delete(
    '/dvr/programs/:programId',
    {
      schema: {
        summary: 'Forget that a programme was recorded, so its next airing records again (its recordings stay)',
        tags,
        params: Type.Object({
          programId: Type.String({
            minLength: 1,
            maxLength: 64,
            description: "the guide's programme id, as items carry it in program_id",
          }),
        }),
        response: { 204: Type.Null(), ...Errors },
      },
    },
    (request, reply) => {
      dvr.forgetProgramme((request.params as { programId: string }).programId);
      return noContent(reply);
    },
  );

  // ---------------------------------------------------------------- live TV
  app.get(
    '/devices/ANY/channels/:number/stream.mpg',
    {
      schema: {
        summary: 'Watch a channel live (MPEG-TS); viewers and recordings of a channel share one tuner',
        tags: [TAGS.media],
        params: NumberParams,
        response: { ...Errors, 503: ErrorSchema },
      },
    },
    (request, reply) => liveStream(dvr, number(request), request, reply),
  );
}

/** Viewers that fall this far behind are cut off rather than buffered without end. */
const MAX_VIEWER_BACKLOG = 16 * 1024 * 1024;

async function liveStream(
  dvr: DvrService,
  channel: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const res = reply.raw;
  // The first video bytes can arrive before join() returns: the answer is ours from here on.
  reply.hijack();
  let subscription: { leave(): void } | undefined;
  let headersSent = false;
  try {
    subscription = await dvr.live.watch(channel, {
      kind: 'viewer',
      data: (chunk) => {
        if (!headersSent) {
          headersSent = true;
          res.writeHead(200, { ...CORS_HEADERS, 'content-type': 'video/mp2t', 'cache-control': 'no-store' });
        }
        if (res.writableLength > MAX_VIEWER_BACKLOG) {
          subscription?.leave();
          res.destroy();
          return;
        }
        res.write(chunk);
      },
      ended: () => res.end(),
    });
  } catch (error) {
    const body = liveErrorBody(error, channel);
    res.writeHead(body.status, { ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
    if (body.status === 500) request.log.error({ err: error }, 'live TV failed');
    return reply;
  }
  request.raw.on('close', () => subscription?.leave());
  if (request.raw.destroyed) subscription.leave();
  return reply;
}

function liveErrorBody(error: unknown, channel: string): ErrorBody {
  if (error instanceof NotFoundError) return { status: 404, code: 'not_found', message: `No channel ${channel}.` };
  if (error instanceof StreamUnavailableError) {
    return {
      status: 503,
      code: error.reason === 'no_tuner' ? 'no_tuner' : 'stream_unavailable',
      message: error.message,
    };
  }
  return { status: 500, code: 'internal_error', message: 'The server failed to answer; the server log says why.' };
}
