/** What a media file holds (`GET /dvr/files/:id`'s `file.media`), as Antenna's probe read it. */
import { type Static, Type } from '@sinclair/typebox';

export const VideoDetailsSchema = Type.Object({
  codec: Type.String({ description: "ffprobe's codec name: h264, hevc, av1, vp9, mpeg2video..." }),
  width: Type.Integer({ minimum: 0 }),
  height: Type.Integer({ minimum: 0 }),
  frameRate: Type.Optional(Type.Number({ description: 'frames per second' })),
  hdr: Type.Optional(Type.Union([Type.Literal('HDR10'), Type.Literal('HLG'), Type.Literal('Dolby Vision')])),
});

export const AudioDetailsSchema = Type.Object({
  codec: Type.String({ description: "ffprobe's codec name: aac, ac3, eac3, opus, mp3..." }),
  channels: Type.Optional(Type.Integer({ minimum: 1 })),
  language: Type.Optional(
    Type.String({
      description: 'as the container gives it: ISO 639-2 ("eng"), ISO 639-1 where only MediaInfo read it',
    }),
  ),
});

export const SubtitleDetailsSchema = Type.Object({
  codec: Type.String({ description: 'subrip, ass, mov_text, webvtt, hdmv_pgs_subtitle, dvd_subtitle...' }),
  language: Type.Optional(Type.String()),
  forced: Type.Boolean(),
});

export const MediaDetailsSchema = Type.Object({
  container: Type.String({ description: 'mp4, mov, matroska, webm, avi, mpegts...' }),
  video: Type.Optional(VideoDetailsSchema),
  audio: Type.Array(AudioDetailsSchema),
  subtitles: Type.Array(SubtitleDetailsSchema),
  closedCaptions: Type.Boolean({ description: 'CEA-608/708 captions carried in the video' }),
});

export type MediaDetails = Static<typeof MediaDetailsSchema>;
export type VideoDetails = Static<typeof VideoDetailsSchema>;
export type AudioDetails = Static<typeof AudioDetailsSchema>;
export type SubtitleDetails = Static<typeof SubtitleDetailsSchema>;
export type HdrFormat = NonNullable<VideoDetails['hdr']>;
