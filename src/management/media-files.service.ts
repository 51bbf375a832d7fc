/**
 * The playable items as files: what a player reads about one (`GET /dvr/files/:id`),
 * its watch state (watch, unwatch, playback position), the file to stream, and
 * deletion, which only ever removes recordings the DVR made itself.
 */
import { rmSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import { ConflictError, NotFoundError } from '../common/errors.js';
import type { Db } from '../db/database.js';
import { chaptersOf } from '../importer/import-files.repository.js';
import { deleteRecordingItem } from '../dvr/recordings.repository.js';
import { getItemFile, getItemJson, type ItemFileRow, setWatchState } from '../library/items.repository.js';

/** The longest playback position accepted: a week, far past any real programme. */
export const MAX_PLAYBACK_SECONDS = 7 * 24 * 3600;

export interface FileFacts {
  /** Bytes on disk; absent when the file is missing. */
  size?: number;
  modified_at?: number;
  available: boolean;
  stream_url: string;
  chapters: { start: number; end: number; title?: string }[];
}

export interface MediaFilesOptions {
  /** Where the DVR writes its recordings: the only place a delete may remove a file from. */
  recordingsDir: string;
  now?: () => number;
  /** Stops a recording still in progress before its item is deleted (the DVR's hook; resolves when the file is closed). */
  stopRecording?: (itemId: string) => Promise<void>;
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
    return {
      ...(stats ? { size: stats.size, modified_at: Math.trunc(stats.mtimeMs) } : {}),
      available: stats !== undefined,
      stream_url: `${baseUrl}/dvr/files/${encodeURIComponent(id)}/stream`,
      chapters: chaptersOf(this.db, id),
    };
  }

  watch(id: string): void {
    this.update(id, { watched: true, playbackTime: 0 });
  }

  unwatch(id: string): void {
    this.update(id, { watched: false });
  }

  /** Where playback resumes; the caller has checked the number (finite, 0 to MAX_PLAYBACK_SECONDS). */
  setPlaybackTime(id: string, seconds: number): void {
    this.update(id, { playbackTime: Math.round(seconds * 1000) / 1000 });
  }

  private update(id: string, state: { watched?: boolean; playbackTime?: number }): void {
    const now = this.now();
    // Every report counts as watching now: last_watched_at is the resume-list order.
    if (!setWatchState(this.db, id, { ...state, lastWatchedAt: now, updatedAt: now })) throw new NotFoundError('file', id);
  }

  /** The file behind an item, for streaming; 404 when the library has none (the sender answers 404 if it is gone from disk). */
  streamPath(id: string): string {
    const row = this.file(id);
    if (!row.path) throw new NotFoundError('file on disk for item', id);
    return row.path;
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

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
