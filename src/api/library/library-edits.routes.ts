/**
 * The management interface's edits of library resources: favorites, labels, locked
 * and verified; collections and playlists. Each answers the resource as interface A
 * would show it next, so a client need not read it again.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { CollectionSchema, PlaylistSchema, ShowSchema, VideoGroupSchema } from '../../model/library/library.schemas.js';
import type { LibraryService } from '../../library/library.service.js';
import type { LibraryEditsService } from '../../management/library-edits.service.js';
import { MAX_PLAYLIST_ITEMS } from '../../management/library-edits.service.js';
import type { MediaFilesService } from '../../management/media-files.service.js';
import { CORS_HEADERS } from '../../http/cors.js';
import { ErrorSchema, StorageErrors } from '../../http/error-reply.js';
import { serializers } from '../json-serializers.js';
import { TAGS } from '../openapi-tags.js';

export interface LibraryEditsDeps {
  edits: LibraryEditsService;
  library: LibraryService;
  files: MediaFilesService;
  baseUrl: (request: FastifyRequest) => string;
}

const Id = Type.String({ minLength: 1, maxLength: 2048 });
const IdParams = Type.Object({ id: Id });
const Name = Type.String({ minLength: 1, maxLength: 500 });
const Labels = Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }), Type.Null()], {
  description: 'replaces the labels; null clears them',
});
const ItemIds = Type.Array(Id, { maxItems: MAX_PLAYLIST_ITEMS });
const Position = Type.Integer({ minimum: 0, maximum: MAX_PLAYLIST_ITEMS });
const Errors = { 400: ErrorSchema, 401: ErrorSchema, 404: ErrorSchema, ...StorageErrors };
const Item = Type.Object(
  { id: Type.String() },
  { additionalProperties: true, description: 'The item in its interface-A shape.' },
);

/** At least one field: an empty edit is a client mistake worth saying. */
function edit(properties: Record<string, TSchema>) {
  return Type.Object(
    Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)])),
    { additionalProperties: false, minProperties: 1 },
  );
}

function json(reply: FastifyReply, status: number, body: string | Buffer): FastifyReply {
  return reply
    .code(status)
    .headers({ ...CORS_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' })
    .send(body);
}

export function registerLibraryEdits(app: FastifyInstance, deps: LibraryEditsDeps): void {
  const { edits, library } = deps;
  const context = (request: FastifyRequest) => ({ baseUrl: deps.baseUrl(request) });
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;
  const body = <T>(request: FastifyRequest) => request.body as T;
  const collection = (request: FastifyRequest, reply: FastifyReply, collectionId: string, status = 200) =>
    json(reply, status, serializers.collection.one(library.getCollection(collectionId, context(request))));
  const playlist = (reply: FastifyReply, playlistId: string, status = 200) =>
    json(reply, status, serializers.playlist.one(library.getPlaylist(playlistId)));
  const schema = (
    summary: string,
    extra: Record<string, unknown>,
    response: Record<number, TSchema>,
  ): { schema: FastifySchema } => ({
    schema: { summary, tags: [TAGS.management], ...extra, response: { ...response, ...Errors } },
  });

  app.patch(
    '/dvr/files/:id',
    schema(
      'Favorite, label, lock or verify an episode, movie or video',
      {
        params: IdParams,
        body: edit({ favorited: Type.Boolean(), labels: Labels, locked: Type.Boolean(), verified: Type.Boolean() }),
      },
      { 200: Item },
    ),
    (request, reply) => {
      edits.editItem(id(request), body(request));
      return json(reply, 200, deps.files.item(id(request), deps.baseUrl(request)));
    },
  );

  const parents = [
    {
      url: '/dvr/shows/:id',
      kind: 'show' as const,
      schema: ShowSchema,
      answer: (request: FastifyRequest, parentId: string) =>
        serializers.show.one(library.getShow(parentId, context(request))),
    },
    {
      url: '/dvr/video_groups/:id',
      kind: 'video_group' as const,
      schema: VideoGroupSchema,
      answer: (request: FastifyRequest, parentId: string) =>
        serializers.videoGroup.one(library.getVideoGroup(parentId, context(request))),
    },
  ];
  for (const parent of parents) {
    app.patch(
      parent.url,
      schema(
        `Favorite or label a ${parent.kind === 'show' ? 'show' : 'video group'}`,
        { params: IdParams, body: edit({ favorited: Type.Boolean(), labels: Labels }) },
        { 200: parent.schema },
      ),
      (request, reply) => {
        edits.editParent(parent.kind, id(request), body(request));
        return json(reply, 200, parent.answer(request, id(request)));
      },
    );
  }

  // ---------------------------------------------------------------- collections
  app.post(
    '/dvr/collections',
    schema(
      'Create a collection (names may repeat)',
      {
        body: Type.Object(
          {
            name: Name,
            collection_type: Type.Union([Type.Literal('movies'), Type.Literal('shows')]),
            image_url: Type.Optional(Type.String({ maxLength: 2048 })),
            labels: Type.Optional(Labels),
          },
          { additionalProperties: false },
        ),
      },
      { 201: CollectionSchema },
    ),
    (request, reply) => collection(request, reply, edits.createCollection(body(request)), 201),
  );
  app.patch(
    '/dvr/collections/:id',
    schema(
      'Rename, re-image or relabel a collection',
      {
        params: IdParams,
        body: edit({
          name: Name,
          image_url: Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]),
          labels: Labels,
        }),
      },
      { 200: CollectionSchema },
    ),
    (request, reply) => {
      edits.editCollection(id(request), body(request));
      return collection(request, reply, id(request));
    },
  );
  app.delete(
    '/dvr/collections/:id',
    schema('Delete a collection (its members stay in the library)', { params: IdParams }, { 204: Type.Null() }),
    (request, reply) => {
      edits.deleteCollection(id(request));
      return reply.headers(CORS_HEADERS).code(204).send();
    },
  );
  const MemberParams = Type.Object({ id: Id, member: Id });
  app.put(
    '/dvr/collections/:id/members/:member',
    schema(
      'Add a movie (movies collection) or a show (shows collection)',
      { params: MemberParams },
      { 200: CollectionSchema },
    ),
    (request, reply) => {
      edits.addMember(id(request), (request.params as { member: string }).member);
      return collection(request, reply, id(request));
    },
  );
  app.delete(
    '/dvr/collections/:id/members/:member',
    schema('Remove a member from a collection', { params: MemberParams }, { 200: CollectionSchema }),
    (request, reply) => {
      edits.removeMember(id(request), (request.params as { member: string }).member);
      return collection(request, reply, id(request));
    },
  );

  // ---------------------------------------------------------------- playlists
  app.post(
    '/dvr/playlists',
    schema(
      'Create a playlist (names may repeat), optionally with its items',
      {
        body: Type.Object(
          { name: Name, labels: Type.Optional(Labels), item_ids: Type.Optional(ItemIds) },
          { additionalProperties: false },
        ),
      },
      { 201: PlaylistSchema },
    ),
    (request, reply) => playlist(reply, edits.createPlaylist(body(request)), 201),
  );
  app.patch(
    '/dvr/playlists/:id',
    schema(
      'Rename or relabel a playlist',
      { params: IdParams, body: edit({ name: Name, labels: Labels }) },
      { 200: PlaylistSchema },
    ),
    (request, reply) => {
      edits.editPlaylist(id(request), body(request));
      return playlist(reply, id(request));
    },
  );
  app.delete(
    '/dvr/playlists/:id',
    schema('Delete a playlist (its items stay in the library)', { params: IdParams }, { 204: Type.Null() }),
    (request, reply) => {
      edits.deletePlaylist(id(request));
      return reply.headers(CORS_HEADERS).code(204).send();
    },
  );
  app.post(
    '/dvr/playlists/:id/items',
    schema(
      'Insert items at a position (default: at the end)',
      {
        params: IdParams,
        body: Type.Object(
          {
            item_ids: Type.Array(Id, { minItems: 1, maxItems: MAX_PLAYLIST_ITEMS }),
            position: Type.Optional(Position),
          },
          { additionalProperties: false },
        ),
      },
      { 200: PlaylistSchema },
    ),
    (request, reply) => {
      const { item_ids, position } = body<{ item_ids: string[]; position?: number }>(request);
      edits.addItems(id(request), item_ids, position);
      return playlist(reply, id(request));
    },
  );
  app.put(
    '/dvr/playlists/:id/items',
    schema(
      'Replace the items, in the order given (reorder with the same ids)',
      { params: IdParams, body: Type.Object({ item_ids: ItemIds }, { additionalProperties: false }) },
      { 200: PlaylistSchema },
    ),
    (request, reply) => {
      edits.setItems(id(request), body<{ item_ids: string[] }>(request).item_ids);
      return playlist(reply, id(request));
    },
  );
  app.delete(
    '/dvr/playlists/:id/items/:position',
    schema(
      'Remove the entry at a position (0 is the first)',
      {
        params: Type.Object({
          id: Id,
          position: Type.String({ pattern: '^[0-9]{1,5}$', description: 'a position from 0' }),
        }),
      },
      { 200: PlaylistSchema },
    ),
    (request, reply) => {
      edits.removeItemAt(id(request), Number((request.params as { position: string }).position));
      return playlist(reply, id(request));
    },
  );
}
