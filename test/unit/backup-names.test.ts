import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backupFileName,
  backupsToRemove,
  beforeRestoreFileName,
  freshBackupName,
  isBeforeRestoreName,
  isPartialName,
  newestBackup,
  parseBackupName,
  partialFileName,
  restoreCommand,
  shellWord,
  untilDue,
} from '../../src/db/backup-names.js';

const DAY = 86_400_000;
/** Whole seconds from 1970 to 9999 (the names hold seconds and four-digit years). */
const times = fc.integer({ min: 0, max: 253_402_300_799 }).map((seconds) => seconds * 1000);
const sequences = fc.integer({ min: 1, max: 9999 });
/** Names a backups folder may hold besides Antenna's: anything, near misses included. */
const otherNames = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'notes.txt',
    'antenna.db',
    'antenna-latest.db',
    'antenna-2025-02-30T00-00-00Z.db',
    'antenna-2025-01-01T00-00-00Z.db.123.partial',
    'antenna-2025-01-01T00-00-00Z-0.db',
    'antenna-2025-01-01T25-00-00Z.db',
    'Antenna-2025-01-01T00-00-00Z.db',
  ),
  times.map((at) => beforeRestoreFileName(at)),
  times.map((at) => `${backupFileName(at)}.bak`),
);

describe('backup names', () => {
  it('name the UTC second they were taken, readably and without colons', () => {
    expect(backupFileName(Date.UTC(2025, 2, 1, 2, 3, 4, 567))).toBe('antenna-2025-03-01T02-03-04Z.db');
    expect(backupFileName(Date.UTC(2025, 2, 1, 2, 3, 4), 2)).toBe('antenna-2025-03-01T02-03-04Z-2.db');
    expect(beforeRestoreFileName(Date.UTC(2025, 2, 1))).toBe('antenna-2025-03-01T00-00-00Z.before-restore.db');
  });

  it('read back as what they were made from', () => {
    fc.assert(
      fc.property(times, sequences, (at, sequence) => {
        const name = backupFileName(at, sequence);
        expect(parseBackupName(name)).toEqual({ name, takenAt: at, sequence });
        expect(isBeforeRestoreName(name)).toBe(false);
        expect(isPartialName(partialFileName(name, 4242))).toBe(true);
        expect(parseBackupName(partialFileName(name, 4242))).toBeUndefined();
      }),
    );
  });

  it('match nothing else: near misses, impossible dates, other cases, partial files and kept copies', () => {
    for (const name of [
      'antenna-2025-02-30T00-00-00Z.db',
      'antenna-2025-01-01T25-00-00Z.db',
      'antenna-2025-01-01T00-00-00Z-0.db',
      'Antenna-2025-01-01T00-00-00Z.db',
      'antenna-2025-01-01T00-00-00.db',
      'antenna.db',
    ]) {
      expect(parseBackupName(name), name).toBeUndefined();
    }
    expect(parseBackupName(beforeRestoreFileName(0))).toBeUndefined();
    expect(isBeforeRestoreName(beforeRestoreFileName(0, 3))).toBe(true);
  });

  it('get a sequence when their second is taken', () => {
    const at = Date.UTC(2025, 0, 1);
    expect(freshBackupName([], at)).toBe(backupFileName(at));
    expect(freshBackupName([backupFileName(at), backupFileName(at, 2)], at)).toBe(backupFileName(at, 3));
    expect(newestBackup([backupFileName(at), backupFileName(at, 2), backupFileName(at - 1000, 7)])?.name).toBe(
      backupFileName(at, 2),
    );
  });
});

describe('retention', () => {
  it('leaves backups dated more than a day ahead out of it (a clock that was wrong), so the newest current one stays', () => {
    const now = Date.UTC(2026, 10, 25, 12);
    const ahead = backupFileName(now + 3 * 86_400_000);
    const today = backupFileName(now - 1000);
    const older = backupFileName(now - 2 * 86_400_000);
    expect(backupsToRemove([ahead, today, older], 1, now)).toEqual([older]);
    expect(backupsToRemove([ahead, today], 1, now)).toEqual([]);
  });

  it('removes only Antenna backups, all but the newest `keep`, and never anything else', () => {
    const backupNames = fc.tuple(times, sequences).map(([at, sequence]) => backupFileName(at, sequence));
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof(backupNames, otherNames)), fc.integer({ min: 0, max: 12 }), (names, keep) => {
        const backups = names.filter((name) => parseBackupName(name) !== undefined);
        const removed = backupsToRemove(names, keep);
        // Nothing but Antenna's own backups, each once.
        for (const name of removed) expect(parseBackupName(name), name).toBeDefined();
        expect(new Set(removed).size).toBe(removed.length);
        const kept = backups.filter((name) => !removed.includes(name));
        // keep 0 is "automatic backups off": nothing removed.
        expect(kept.length).toBe(keep === 0 ? backups.length : Math.min(keep, backups.length));
        // Every one kept is newer than every one removed.
        const key = (name: string) => {
          const parsed = parseBackupName(name)!;
          return parsed.takenAt * 10_000 + parsed.sequence;
        };
        if (removed.length > 0 && kept.length > 0)
          expect(Math.min(...kept.map(key))).toBeGreaterThan(Math.max(...removed.map(key)));
      }),
    );
  });
});

describe('when a backup is due', () => {
  const now = Date.UTC(2025, 5, 1, 12);

  it('at once without backups or with the newest a day old, else when it will be', () => {
    expect(untilDue(['notes.txt'], now, DAY)).toBe(0);
    expect(untilDue([backupFileName(now - DAY)], now, DAY)).toBe(0);
    expect(untilDue([backupFileName(now - DAY - 5000), backupFileName(now - 3_600_000)], now, DAY)).toBe(
      DAY - 3_600_000,
    );
  });

  it('not held back by a backup dated far ahead by a wrong clock', () => {
    expect(untilDue([backupFileName(now + 30 * DAY)], now, DAY)).toBe(0);
    expect(untilDue([backupFileName(now + 30 * DAY), backupFileName(now - 1000)], now, DAY)).toBe(DAY - 1000);
  });

  it('never negative, never more than the interval after the newest', () => {
    fc.assert(
      fc.property(fc.array(times), times, (stamps, at) => {
        const wait = untilDue(
          stamps.map((t) => backupFileName(t)),
          at,
          DAY,
        );
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThanOrEqual(DAY + DAY);
      }),
    );
  });
});

describe('the restore command in messages', () => {
  it('quotes what a shell would split or expand', () => {
    expect(restoreCommand('/data/backups/antenna-2025-03-01T02-00-00Z.db', '/data')).toBe(
      'antenna restore /data/backups/antenna-2025-03-01T02-00-00Z.db --data /data',
    );
    expect(shellWord("/srv/my data/it's.db")).toBe(`'/srv/my data/it'\\''s.db'`);
    expect(shellWord('$HOME')).toBe(`'$HOME'`);
  });
});
