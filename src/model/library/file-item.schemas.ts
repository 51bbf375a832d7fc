/** `GET /dvr/files/:id`'s answer: the item, its file's facts, and the PascalCase fields desktop clients read. */
import { Type } from '@sinclair/typebox';
import { MediaDetailsSchema } from './media-details.schemas.js';

export const FileFacts = Type.Object({
  size: Type.Optional(Type.Integer({ minimum: 0, description: 'bytes on disk' })),
  modified_at: Type.Optional(Type.Integer({ description: 'epoch milliseconds' })),
  available: Type.Boolean({ description: 'false when the file is not on disk now' }),
  stream_url: Type.String(),
  chapters: Type.Array(Type.Object({ start: Type.Number(), end: Type.Number(), title: Type.Optional(Type.String()) })),
  media: Type.Optional({ ...MediaDetailsSchema, description: 'what the file holds, once probed (imported files)' }),
});
export const FileItem = Type.Object(
  {
    id: Type.String(),
    file: FileFacts,
    ID: Type.String(),
    RuleID: Type.String({ description: 'the rule that recorded it; empty for an import' }),
    GroupID: Type.String({ description: 'its show or video group; empty for a movie' }),
    JobID: Type.String({ description: 'the job that recorded it; empty for an import' }),
    Path: Type.String(),
    CreatedAt: Type.Integer({ description: 'epoch milliseconds' }),
    Duration: Type.Number({ description: 'seconds; 0 when not known yet' }),
  },
  {
    additionalProperties: true,
    description:
      'The item in its interface-A shape (episode, movie or video), plus `file` and the PascalCase fields desktop clients read.',
  },
);
