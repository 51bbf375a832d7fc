/** `GET /dvr/files/:id`'s answer: the item, its file's facts, and the PascalCase fields desktop clients read. */
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';
import { MediaDetailsSchema } from './media-details.schemas.js';

export const DETECTION_STATES = ['pending', 'live', 'live_failed', 'final', 'done', 'failed', 'off'] as const;
export type DetectionState = (typeof DETECTION_STATES)[number];

/** Where a recording's commercial detection stands: the item's `commercials` are live, final or absent by it. */
export const CommercialDetectionSchema = Type.Object(
  {
    state: StringEnum(DETECTION_STATES, {
      description:
        "'pending': waiting (for a live slot, or for the final pass once it ended); 'live': marks are found while it records (they trail the live edge by up to about 2.5 min); 'live_failed': that failed, no live marks, the final pass still runs; 'final': the final pass runs; 'done': the marks are final; 'failed': the final pass could not judge the file (no marks); 'off': comskip is not installed or detection is off",
    }),
    error: Type.Optional(Type.String({ description: "why, in the failed states: comskip's own reason" })),
  },
  { title: 'Commercial detection' },
);

export const FileFacts = Type.Object({
  size: Type.Optional(Type.Integer({ minimum: 0, description: 'bytes on disk' })),
  modified_at: Type.Optional(Type.Integer({ description: 'epoch milliseconds' })),
  available: Type.Boolean({ description: 'false when the file is not on disk now' }),
  stream_url: Type.String(),
  chapters: Type.Array(Type.Object({ start: Type.Number(), end: Type.Number(), title: Type.Optional(Type.String()) })),
  media: Type.Optional({ ...MediaDetailsSchema, description: 'what the file holds, once probed (imported files)' }),
  commercial_detection: Type.Optional({
    ...CommercialDetectionSchema,
    description: 'recordings only: where finding their commercials stands (`recording.commercials` tells each change)',
  }),
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
