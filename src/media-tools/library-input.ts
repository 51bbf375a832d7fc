/**
 * How ffmpeg, ffprobe and comskip are given a library file: never by its name, always
 * as the descriptor Antenna opened after the library's boundary admitted it
 * (PathBoundary.open), passed as the program's fd 3 and named /dev/fd/3 (on Linux a
 * fresh open of that same file, so seeking works, which ffmpeg's pipe: protocol would
 * not allow). A name swapped for a link to /etc/shadow after the check is never read.
 *
 * And what the program may do with it: only the `file` protocol (no http:, data:,
 * subfile:, concat:, tee:...), and only demuxers that read media from the file itself.
 * A text file named `Movie (2013).ts` holding an HLS playlist would otherwise be opened
 * by the hls demuxer, which follows its references to any file the server can read;
 * the same for concat lists, ffconcat, SDP, DASH manifests and image sequences. With a
 * format whitelist, ffmpeg refuses such a file ("Format not on whitelist") rather than
 * trying another demuxer. mov's own external references (dref) are off by default
 * (enable_drefs=0) and stay so.
 */

/** The descriptor number the opened file has in the program. */
export const INPUT_FD = 3;
/** The program's name for it. */
export const INPUT_PATH = `/dev/fd/${INPUT_FD}`;

/**
 * ffmpeg's demuxers for the containers the importer takes (media-name.parser.ts'
 * VIDEO_EXTENSIONS: mkv/webm, mp4/m4v/mov/3gp, ts/m2ts/mts, mpg/mpeg/vob, avi/divx,
 * wmv, flv, ogv) and the raw elementary streams a misnamed broadcast file may be;
 * none of them opens another file or URL.
 */
export const MEDIA_DEMUXERS: readonly string[] = [
  'matroska',
  'mov',
  'mpegts',
  'mpeg',
  'avi',
  'asf',
  'flv',
  'ogg',
  'mpegvideo',
  'h264',
  'hevc',
  'm4v',
  'dv',
  'wtv',
];

/** ffmpeg's or ffprobe's input options (before `-i`) that keep it to the file's own media. */
export function mediaInputLimits(): string[] {
  return ['-protocol_whitelist', 'file', '-format_whitelist', MEDIA_DEMUXERS.join(',')];
}

/** What a refusal by those limits looks like in ffmpeg's words (a playlist or reference file, not media). */
export function refusedAsReference(stderr: string): boolean {
  return /Format not on whitelist|Protocol '[^']*' not on whitelist/.test(stderr);
}

/** The reason a library file is not media, when ffmpeg refused it for following references. */
export const REFERENCE_FILE_REASON =
  'it is not media but a playlist or reference file (HLS, concat list, SDP...) that points at other files; Antenna does not follow such files';
