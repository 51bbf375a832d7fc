/**
 * The lineup as the user shapes it (issue 21): `/dvr/lineup` lists every channel with
 * what its source says and what the user changed; PATCH edits one channel, the group
 * routes hide, show or renumber a group at once, and PATCH /dvr/guides/:id sets a
 * guide's priority. Writes need the token like every management write.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LineupEditsService } from '../../dvr/lineup/lineup-edits.service.js';
import { guideOut } from '../../dvr/dvr-resource-mappers.js';
import { GuideSchema } from '../../model/dvr/dvr.schemas.js';
import {
  GuideEditSchema,
  type LineupEdit,
  LineupEditSchema,
  LineupChannelSchema,
  LineupGroupSchema,
  RenumberBodySchema,
} from '../../model/dvr/lineup.schemas.js';
import { ErrorSchema, StorageErrors } from '../../http/error-reply.js';
import { TAGS } from '../openapi-tags.js';
import { jsonReply as json } from '../json-reply.js';

export interface LineupEditRoutesDeps {
  edits: LineupEditsService;
}

const Errors = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, ...StorageErrors };
const IdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'a channel id (GET /dvr/lineup)' }),
});
const GroupParams = Type.Object({
  group: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'a group name (GET /dvr/lineup/groups), URL-encoded',
  }),
});
const GuideParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const Channels = Type.Array(LineupChannelSchema);

export function registerLineupEditRoutes(app: FastifyInstance, deps: LineupEditRoutesDeps): void {
  const { edits } = deps;
  const tags = [TAGS.dvr];
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;
  const group = (request: FastifyRequest) => (request.params as { group: string }).group;

  app.get(
    '/dvr/lineup',
    {
      schema: {
        summary: "Every channel, hidden ones too, with what its source says and the user's edits",
        tags,
        response: { 200: Channels, 401: ErrorSchema },
      },
    },
    (_request, reply) => json(reply, 200, edits.list()),
  );
  app.get(
    '/dvr/lineup/groups',
    {
      schema: {
        summary: 'Channel groups (the user’s, else the sources’ group-titles)',
        tags,
        response: { 200: Type.Array(LineupGroupSchema), 401: ErrorSchema },
      },
    },
    (_request, reply) => json(reply, 200, edits.groups()),
  );
  app.get(
    '/dvr/lineup/:id',
    {
      schema: {
        summary: 'One channel of the lineup',
        tags,
        params: IdParams,
        response: { 200: LineupChannelSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, edits.get(id(request))),
  );
  app.patch(
    '/dvr/lineup/:id',
    {
      schema: {
        summary: 'Rename, renumber, hide or show a channel, set its logo, group, favorite or guide',
        description:
          'Kept across every refresh of its source (found again by its tvg-id when unique in the playlist, else by its number and name there). ' +
          'null gives a field back to the source. A number a visible channel has is a 409 naming both; rules naming the old number follow the channel.',
        tags,
        params: IdParams,
        body: LineupEditSchema,
        response: { 200: LineupChannelSchema, ...Errors },
      },
    },
    (request, reply) => json(reply, 200, edits.edit(id(request), request.body as LineupEdit)),
  );
  for (const [action, hidden] of [
    ['hide', true],
    ['show', false],
  ] as const) {
    app.post(
      `/dvr/lineup/groups/:group/${action}`,
      {
        schema: {
          summary: `${action === 'hide' ? 'Hide' : 'Show'} every channel of a group`,
          tags,
          params: GroupParams,
          response: { 200: Channels, ...Errors },
        },
      },
      (request, reply) => json(reply, 200, edits.setGroupHidden(group(request), hidden)),
    );
  }
  app.post(
    '/dvr/lineup/groups/:group/renumber',
    {
      schema: {
        summary: "Number a group's visible channels from a start, in their order",
        description: 'A number a visible channel outside the group has is a 409 naming both; nothing changes then.',
        tags,
        params: GroupParams,
        body: RenumberBodySchema,
        response: { 200: Channels, ...Errors },
      },
    },
    (request, reply) =>
      json(reply, 200, edits.renumberGroup(group(request), (request.body as { start: number }).start)),
  );
  app.patch(
    '/dvr/guides/:id',
    {
      schema: {
        summary: "Set a guide's priority (where guides describe one channel, the first gives its programmes)",
        tags,
        params: GuideParams,
        body: GuideEditSchema,
        response: { 200: GuideSchema, ...Errors },
      },
    },
    (request, reply) =>
      json(reply, 200, guideOut(edits.setGuidePriority(id(request), (request.body as { priority: number }).priority))),
  );
}
