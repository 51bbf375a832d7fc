/**
 * The playable items as files: what a player reads about one (`GET /dvr/files/:id`),
 * its watch state (watch, unwatch, playback position), the file to stream, and
 * deletion, which only ever removes recordings the DVR made itself.
 */
import { rmSync, statfsSync, statSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { ConflictError, ForbiddenError, NotFoundError } from '../common/errors.js';
import type { OpenedFile, PathBoundary, Resolution, ServedFile } from '../common/path-boundary.js';
import type { Db } from '../db/database.js';
import { probeFactsOf } from '../repositories/library/import-files.repository.js';
import type { MediaDetails } from '../model/library/media-details.schemas.js';
import { deleteRecordingItem, getRecording } from '../repositories/dvr/recordings.repository.js';
import {
  type CommercialDetection,
  getCommercialDetection,
} from '../repositories/dvr/commercial-detection.repository.js';
import type { ItemStateLog } from '../common/item-state-log.js';
import {
  getItemFile,
  getItemJson,
  type ItemFileRow,
  setWatchState,
  trackItemState,
} from '../repositories/library/items.repository.js';

/** The longest playback position accepted: a week, far past any real programme. */
export const MAX_PLAYBACK_SECONDS = 7 * 24 * 3600;

export interface FileFacts {
  /** Bytes on disk; absent when the file is missing. */
  size?: number;
  modified_at?: number;
  available: boolean;
  stream_url: string;
  chapters: { start: number; end: number; title?: string }[];
  media?: MediaDetails;
  commercial_detection?: { state: CommercialDetection['state']; error?: string };
}

export interface ClientFileFields {
  ID: string;
  RuleID: string;
  GroupID: string;
  JobID: string;
  Path: string;
  CreatedAt: number;
  Duration: number;
}

export interface MediaFilesOptions {
  /** Where the DVR writes its recordings: the only place a delete may remove a file from. */
  recordingsDir: string;
  /** Where files may be streamed from: the import roots and the recordings folder. */
  boundary: PathBoundary;
  now?: () => number;
  /**
   * Stops a recording still in progress before its item is deleted (the DVR's hook; resolves when the file is closed).
   */
  stopRecording?: (itemId: string) => Promise<void>;
  /** Watch-state writes are logged here, so interface A's cached lists are patched, not built again. */
  stateLog?: ItemStateLog;
}

export class MediaFilesService {
  constructor(
    private readonly db: Db,
    private readonly options: MediaFilesOptions,
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private file(id: string): ItemFileRow {
    const row = getItemFile(this.db, id);
    if (!row) throw new NotFoundError('file', id);
    return row;
  }

  /** The item in its interface-A shape, as JSON bytes. */
  item(id: string, baseUrl: string): Buffer {
    const { kind } = this.file(id);
    const json = getItemJson(this.db, id, kind, baseUrl);
    if (!json) throw new NotFoundError('file', id);
    return json;
  }

  facts(id: string, baseUrl: string): FileFacts {
    const row = this.file(id);
    const stats = row.path ? statOrUndefined(row.path) : undefined;
    const { chapters, media } = probeFactsOf(this.db, id);
    const detection = getCommercialDetection(this.db, id);
    return {
      ...(stats ? { size: stats.size, modified_at: Math.trunc(stats.mtimeMs) } : {}),
      available: stats !== undefined,
      stream_url: `${baseUrl}/dvr/files/${encodeURIComponent(id)}/stream`,
      chapters,
      ...(media ? { media } : {}),
      ...(detection
        ? {
            commercial_detection: {
              state: detection.state,
              ...(detection.error !== null ? { error: detection.error } : {}),
            },
          }
        : {}),
    };
  }

  /**
   * The PascalCase fields desktop clients of this kind of server read on a file record:
   * ID, RuleID and JobID (non-empty for a recording a rule made), GroupID (its show or
   * video group), Path, CreatedAt (epoch ms) and Duration (seconds, 0 when not known).
   */
  clientFields(
    id: string,
    item: { show_id?: string; video_group_id?: string; path?: string; created_at?: number; duration?: number },
  ): ClientFileFields {
    const recording = getRecording(this.db, id);
    return {
      ID: id,
      RuleID: recording?.rule_id != null ? String(recording.rule_id) : '',
      GroupID: item.show_id ?? item.video_group_id ?? '',
      JobID: recording?.job_id ?? '',
      Path: item.path ?? '',
      CreatedAt: item.created_at ?? 0,
      Duration: item.duration ?? 0,
    };
  }

  /** What `GET /dvr` says of the DVR: where it records (clients map file paths with it), its version, its disk. */
  describe(version: string): { path: string; version: string; disk?: { total: number; free: number } } {
    const path = this.options.recordingsDir;
    // Before the first recording the folder is not made yet: the disk it will be made on
    // (its nearest existing parent) is the one whose space matters.
    for (let at = path; ; at = dirname(at)) {
      try {
        const stats = statfsSync(at);
        return { path, version, disk: { total: stats.blocks * stats.bsize, free: stats.bavail * stats.bsize } };
      } catch {
        if (dirname(at) === at) return { path, version };
      }
    }
  }

  watch(id: string): void {
    this.update(id, { watched: true, playbackTime: 0 });
  }

  unwatch(id: string): void {
    this.update(id, { watched: false });
  }

  /** Where playback resumes; the caller has checked the number (finite, 0 to MAX_PLAYBACK_SECONDS). */
  setPlaybackTime(id: string, seconds: number): void {
    this.update(id, { playbackTime: Math.round(seconds * 1000) / 1000 }, true);
  }

  private update(id: string, state: { watched?: boolean; playbackTime?: number }, progress = false): void {
    const now = this.now();
    // Every report counts as watching now: last_watched_at is the resume-list order.
    const written = trackItemState(
      this.db,
      this.options.stateLog,
      id,
      () => setWatchState(this.db, id, { ...state, lastWatchedAt: now, updatedAt: now }),
      progress,
    );
    if (!written) throw new NotFoundError('file', id);
  }

  /**
   * The real path of the file behind an item, for streaming. Only media inside the
   * library is served: an imported file ffprobe could not read is not (409 not_media), nor one
   * that now resolves outside the roots (403, a link swapped in after the scan); 404
   * when the library has no file or it is gone from disk. An item not probed yet is
   * served: the scan that imported it probes it next. A damaged import (cut short) is
   * served: it plays as far as its data goes.
   */
  streamFile(id: string): ServedFile {
    const row = this.playableRow(id);
    const resolved = this.options.boundary.resolveFile(row.path);
    if (!resolved.ok) throw refusal(id, resolved);
    return {
      path: resolved.realPath,
      knownAs: row.path,
      ...(resolved.identity ? { identity: resolved.identity } : {}),
    };
  }

  /**
   * The file behind an item, opened after the same checks as streamFile (the check made
   * of what was opened: see PathBoundary.open), for the programs a stream runs (HLS's
   * ffmpeg, its restarts and subtitles). The caller closes it. `playableSeconds`: how far
   * a damaged import plays (its data ends before the length its container declares).
   */
  async openFile(id: string): Promise<{ file: OpenedFile; playableSeconds?: number }> {
    const row = this.playableRow(id);
    const opening = await this.options.boundary.open(row.path);
    if (!opening.ok) throw refusal(id, opening);
    return { file: opening.file, ...(row.damaged && row.duration !== null ? { playableSeconds: row.duration } : {}) };
  }

  private playableRow(id: string): ItemFileRow & { path: string } {
    const row = this.file(id);
    if (!row.path) throw new NotFoundError('file on disk for item', id);
    // For an import, corrupted means ffprobe could not read it, unless it is only damaged (cut short, still playable);
    // a recording's flag means damaged.
    if (row.corrupted && row.source !== 'recordings' && !row.damaged) {
      throw new ConflictError(
        'not_media',
        `The file of '${id}' is not media ffprobe can read, so Antenna does not serve it; replace it with a playable file and rescan.`,
      );
    }
    return row as ItemFileRow & { path: string };
  }

  /**
   * Deletes a recording the DVR made: its entry, and its file when the file is in the
   * recordings folder. An imported item is the user's file: 409, nothing touched.
   */
  async delete(id: string): Promise<void> {
    const row = this.file(id);
    if (row.source !== 'recordings') {
      throw new ConflictError(
        'not_a_recording',
        `'${id}' is an imported file: Antenna never deletes your files. Remove it from the import folder; the next scan drops it.`,
      );
    }
    // A recording still being written is stopped first, so no recorder writes to a deleted file.
    await this.options.stopRecording?.(id);
    const dir = this.options.recordingsDir;
    if (row.path && row.path.startsWith(dir.endsWith(sep) ? dir : dir + sep)) rmSync(row.path, { force: true });
    deleteRecordingItem(this.db, id);
  }
}

/** The error a file the boundary refused answers. */
function refusal(id: string, resolved: Exclude<Resolution, { ok: true }>): Error {
  if (resolved.reason === 'outside') {
    return new ForbiddenError(
      'outside_library',
      `The file of '${id}' leads outside the import roots and recordings folder; Antenna serves only files inside them (see --follow-external-links).`,
    );
  }
  if (resolved.reason === 'missing') return new NotFoundError('file on disk for item', id);
  if (resolved.reason === 'not_a_file')
    return new ConflictError(
      'not_media',
      `The file of '${id}' is not a regular file (a pipe, device or folder), so Antenna does not serve it.`,
    );
  return new ForbiddenError(
    'file_unreadable',
    `The file of '${id}' cannot be read by the server (${resolved.error?.code ?? 'error'}); check its permissions.`,
  );
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
