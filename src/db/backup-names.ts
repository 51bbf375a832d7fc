/**
 * The names of the database backups in DATA/backups, and which of them are due or go
 * (pure). A backup is `antenna-2025-03-01T02-00-00Z.db` (the UTC time it was taken,
 * with `-` for `:` so every file system takes it; `-2`, `-3` when that second is
 * taken), so a listing sorts by age and a person sees when each was made. Only names
 * of exactly this shape are ever counted or removed: anything else in the folder is
 * the user's. The copy `antenna restore` keeps of the database it replaces ends in
 * `.before-restore.db`: it is never removed and never offered as the one to restore
 * (it may be the damaged database the restore is undoing).
 */
import { dirname, join } from 'node:path';

/** The folder under the data directory. */
export const BACKUPS_FOLDER = 'backups';

export function backupsDir(dataDir: string): string {
  return join(dataDir, BACKUPS_FOLDER);
}

/** The backups folder beside a database file (DATA/antenna.db -> DATA/backups). */
export function backupsDirOf(databaseFile: string): string {
  return backupsDir(dirname(databaseFile));
}

const STAMP = String.raw`(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})Z`;
const BACKUP = new RegExp(String.raw`^antenna-${STAMP}(?:-([1-9]\d{0,3}))?\.db$`);
const BEFORE_RESTORE = new RegExp(String.raw`^antenna-${STAMP}(?:-([1-9]\d{0,3}))?\.before-restore\.db$`);
/** What a backup is written to before it is checked and renamed; left behind only by a crash. */
const PARTIAL = new RegExp(String.raw`^antenna-${STAMP}(?:-[1-9]\d{0,3})?(?:\.before-restore)?\.db\.\d+\.partial$`);

export interface BackupName {
  name: string;
  /** When it was taken (epoch ms, whole seconds). */
  takenAt: number;
  /** 1 for the first of its second, 2 for `-2`, ... */
  sequence: number;
}

const two = (n: number) => String(n).padStart(2, '0');

function stamp(at: number): string {
  const d = new Date(Math.floor(at / 1000) * 1000);
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}-${two(d.getUTCMinutes())}-${two(d.getUTCSeconds())}Z`;
}

/** `antenna-<UTC time>.db`; a sequence above 1 is appended for a second already taken. */
export function backupFileName(at: number, sequence = 1): string {
  return `antenna-${stamp(at)}${sequence > 1 ? `-${sequence}` : ''}.db`;
}

/** The name of the copy a restore keeps of the database it replaces. */
export function beforeRestoreFileName(at: number, sequence = 1): string {
  return `antenna-${stamp(at)}${sequence > 1 ? `-${sequence}` : ''}.before-restore.db`;
}

/** The file a copy is written to first (never matches a backup's name). */
export function partialFileName(finalPath: string, pid: number): string {
  return `${finalPath}.${pid}.partial`;
}

function parseWith(pattern: RegExp, name: string): BackupName | undefined {
  const match = pattern.exec(name);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const takenAt = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2025-02-30 over into March; such a name was not written by Antenna.
  if (
    Number.isNaN(takenAt) ||
    stamp(takenAt) !== match[0].slice('antenna-'.length, 'antenna-'.length + 20) ||
    year < 1970
  )
    return undefined;
  return { name, takenAt, sequence: match[7] === undefined ? 1 : Number(match[7]) };
}

/** A backup's time and sequence from its name; undefined for any other name. */
export function parseBackupName(name: string): BackupName | undefined {
  return parseWith(BACKUP, name);
}

export function isBeforeRestoreName(name: string): boolean {
  return parseWith(BEFORE_RESTORE, name) !== undefined;
}

export function isPartialName(name: string): boolean {
  return PARTIAL.test(name);
}

/** Newest first: by time, then sequence. */
export function newestFirst(a: BackupName, b: BackupName): number {
  return b.takenAt - a.takenAt || b.sequence - a.sequence;
}

/** The backups among a folder's names, newest first. */
export function backupsIn(names: readonly string[]): BackupName[] {
  return names.flatMap((name) => parseBackupName(name) ?? []).sort(newestFirst);
}

/** The newest backup's name, if any. */
export function newestBackup(names: readonly string[]): BackupName | undefined {
  return backupsIn(names)[0];
}

/**
 * The names retention removes: every backup but the `keep` newest. Names of any other
 * shape are never among them. `keep` 0 (automatic backups off) removes nothing.
 */
export function backupsToRemove(names: readonly string[], keep: number, now = Number.POSITIVE_INFINITY): string[] {
  if (keep <= 0) return [];
  // Dated more than a day ahead (taken while the clock was wrong): neither kept in place of
  // current ones nor removed. Counted among the newest, they made each new backup the one
  // removed, and the next one due at once (a backup every second).
  return backupsIn(names)
    .filter((backup) => backup.takenAt <= now + 86_400_000)
    .slice(keep)
    .map((backup) => backup.name);
}

/** A name for a new backup taken at `at` that none of `names` has. */
export function freshBackupName(names: readonly string[], at: number, name = backupFileName): string {
  const taken = new Set(names);
  for (let sequence = 1; ; sequence++) {
    const candidate = name(at, sequence);
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Milliseconds until an automatic backup is due: 0 when there is none yet or the
 * newest is `intervalMs` old. A backup dated more than a day ahead (taken while the
 * clock was wrong) does not count, or it would hold backups back until that date.
 */
export function untilDue(names: readonly string[], now: number, intervalMs: number): number {
  const newest = backupsIn(names).find((backup) => backup.takenAt <= now + 86_400_000);
  return newest === undefined ? 0 : Math.max(0, newest.takenAt + intervalMs - now);
}

/** A path as a POSIX shell word: bare when safe, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", String.raw`'\''`)}'`;
}

/** The exact command that restores `file` into `dataDir`. */
export function restoreCommand(file: string, dataDir: string): string {
  return `antenna restore ${shellWord(file)} --data ${shellWord(dataDir)}`;
}

/** `2025-03-01 02:00 UTC`, for messages. */
export function formatTakenAt(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
