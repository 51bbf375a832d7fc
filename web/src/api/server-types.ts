/**
 * The server's payloads, as types derived from the very TypeBox schemas that validate
 * and serialize them (src/model, src/api): never written a second time here. Only
 * types cross over (`import type`), so none of the server's code lands in the bundle.
 */
import type { Static } from '@sinclair/typebox';
import type {
  Channel,
  Collection,
  ContentMovie,
  Episode,
  Job,
  Movie,
  Playlist,
  Show,
  Video,
  VideoGroup,
} from '../../../src/model/library.schemas.js';
import type { StatusSchema } from '../../../src/model/status.schemas.js';
import type { FileItem as FileItemSchema } from '../../../src/model/file-item.schemas.js';

export type { Channel, Collection, ContentMovie, Episode, Job, Movie, Playlist, Show, Video, VideoGroup };
export type ServerStatus = Static<typeof StatusSchema>;

/** Anything that plays: an episode, a movie or a video (lists such as /api/v1/all mix them). */
export type PlayableItem = Episode | Movie | ContentMovie | Video;

/** `GET /dvr/files/:id`: the item in its own shape, its file's facts, and the PascalCase fields clients read. */
export type FileItem = PlayableItem & Static<typeof FileItemSchema>;
