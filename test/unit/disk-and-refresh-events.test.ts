/**
 * Events told by the disk watch, the source and guide refreshes and the scans: each
 * line crossed once (the disk), the words and facts of each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DISK_FULL_BYTES, DiskWatch, type DiskLevel, diskLevel } from '../../src/management/disk-watch.js';
import type { NewEvent } from '../../src/model/events/event.schemas.js';
import { guideApplied, guideFailed, sourceBack, sourceFailing } from '../../src/dvr/sources/refresh-events.js';
import { scannedEvent } from '../../src/importer/scan-scheduler.js';

const GB = 1e9;

describe('diskLevel', () => {
  it('is full below 1 GB and low below the setting, whatever came before (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<DiskLevel>('ok', 'low', 'full'),
        fc.double({ min: 0, max: 100 * GB, noNaN: true }),
        fc.double({ min: 0, max: 50 * GB, noNaN: true }),
        (before, free, low) => {
          const level = diskLevel(before, free, low);
          if (free < DISK_FULL_BYTES) expect(level).toBe('full');
          else if (low > 0 && free < low) expect(level).not.toBe('ok');
          if (free >= low * 1.1 && free >= DISK_FULL_BYTES * 1.1) expect(level).toBe('ok');
        },
      ),
    );
  });

  it('goes back up only past a margin', () => {
    expect(diskLevel('low', 10.5 * GB, 10 * GB)).toBe('low');
    expect(diskLevel('low', 11.5 * GB, 10 * GB)).toBe('ok');
    expect(diskLevel('full', 1.05 * GB, 10 * GB)).toBe('full');
    expect(diskLevel('full', 2 * GB, 10 * GB)).toBe('low');
    expect(diskLevel('ok', 5 * GB, 0)).toBe('ok');
  });
});

describe('DiskWatch', () => {
  it('tells disk.low and disk.full once each as the disk fills, and again after it had room', () => {
    const told: NewEvent[] = [];
    let free = 50 * GB;
    const watch = new DiskWatch({
      measure: () => ({ path: '/rec', disk: { free, total: 100 * GB } }),
      lowBytes: 10 * GB,
      emit: (event) => told.push(event),
    });
    const at = (gb: number) => {
      free = gb * GB;
      watch.check();
    };
    for (const gb of [50, 9, 8, 9.5, 0.5, 0.4, 5, 20, 9]) at(gb);
    expect(told.map((e) => e.kind)).toEqual(['disk.low', 'disk.full', 'disk.low']);
    expect(told[0]).toMatchObject({
      severity: 'warning',
      data: { path: '/rec', free_bytes: 9 * GB, total_bytes: 100 * GB, threshold_bytes: 10 * GB },
    });
    expect(told[0]!.message).toMatch(/9\.0 GB free, below the 10\.0 GB set/);
    expect(told[1]).toMatchObject({ severity: 'error', message: expect.stringMatching(/full \(0\.5 GB free\)/) });
  });

  it('says nothing of a disk it cannot read', () => {
    const told: NewEvent[] = [];
    new DiskWatch({ measure: () => ({ path: '/x' }), lowBytes: GB, emit: (e) => told.push(e) }).check();
    expect(told).toEqual([]);
  });
});

describe('refresh and scan events', () => {
  it('words a source failing and back, a guide failed and applied', () => {
    expect(sourceFailing({ id: 's1', name: 'IPTV' }, 'HTTP 503')).toMatchObject({
      kind: 'source.failing',
      severity: 'error',
      message: 'The source IPTV could not be refreshed (its channels stay as they were): HTTP 503',
      data: { source_id: 's1', reason: 'HTTP 503' },
    });
    expect(sourceBack({ id: 's1', name: 'IPTV' })).toMatchObject({ kind: 'source.back', severity: 'info' });
    expect(guideFailed('g1', 'not XMLTV')).toMatchObject({ kind: 'guide.failed', data: { guide_id: 'g1' } });
    expect(guideApplied('g1', 'guide.xml', { programmes: 120 }).message).toMatch(/120 programmes/);
  });

  it('tells a scan that changed something or found problems, not a quiet rescan', () => {
    const summary = {
      added: 0,
      updated: 0,
      moved: 0,
      removed: 0,
      unchanged: 9,
      ignored: 0,
      probed: 0,
      probeMs: 0,
      thumbnails: 0,
      failed: [],
    };
    const roots = [{ kind: 'tv' as const, path: '/media/tv' }];
    expect(scannedEvent(roots, { ...summary, durationMs: 1 } as never)).toBeUndefined();
    expect(scannedEvent(roots, { ...summary, added: 3, moved: 1 } as never)).toMatchObject({
      kind: 'library.scanned',
      severity: 'info',
      message: 'The library scan finished: 3 added, 1 updated, 0 removed.',
      data: { path: '/media/tv', added: 3, updated: 1, removed: 0 },
    });
    expect(scannedEvent(roots, { ...summary, failed: [{ path: 'a', reason: 'b' }] } as never)?.severity).toBe(
      'warning',
    );
  });
});
