/** When scans run: a request with nothing to scan must not block every scan after it. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/importer/import.service.js';
import { gatherDelayMs, mayBeSecondHalf, ScanScheduler } from '../../src/importer/scan-scheduler.js';
import { until } from '../support/dvr-app.js';
import { makeClip } from '../support/media-tree.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

let temp: TempLibrary | undefined;
afterEach(() => temp?.close());

describe('ScanScheduler', () => {
  it('still scans after a request that found nothing waiting (a debounce that fires after the roots were taken)', async () => {
    temp = createTempLibrary();
    const root = join(temp.dir, 'videos');
    mkdirSync(join(root, 'Trips'), { recursive: true });
    makeClip(join(root, 'Trips', 'Lake.mp4'));
    const silent = pino({ level: 'silent' });
    const roots = [{ kind: 'videos' as const, path: root }];
    const scheduler = new ScanScheduler(new ImportService(temp.db, { logger: silent, probe: false }), roots, {
      logger: silent,
      watch: false,
      rescanIntervalMs: 0,
    });
    scheduler.request([]);
    expect(scheduler.status().running).toBe(false);
    scheduler.request(roots);
    const status = await until(
      () => scheduler.status(),
      (s) => s.last !== undefined && !s.running,
      10_000,
      'a scan',
    );
    expect(status.last?.summary.added).toBe(1);
    await scheduler.stop();
  });
});

describe('gatherDelayMs: when watched changes are imported', () => {
  const base = {
    now: 0,
    firstChangeAt: 0,
    firstRemovalAt: undefined,
    addedSinceRemoval: false,
    debounceMs: 300,
    writeFinishMs: 1000,
  };

  it('imports a change the debounce after the last, and a steady stream at most 2 s after the first', () => {
    expect(gatherDelayMs(base)).toBe(300);
    expect(gatherDelayMs({ ...base, now: 1900 })).toBe(100);
    expect(gatherDelayMs({ ...base, now: 2500 })).toBe(0);
  });

  it("holds a removal until its move's other half has had time to come: 2 s past the watcher's write check and the debounce", () => {
    // The file at its new place is reported once its size held still for writeFinishMs: a
    // busy machine reported it 1.3 s and more after the removal, when the window had closed.
    expect(gatherDelayMs({ ...base, firstRemovalAt: 0 })).toBe(3300);
    // Another removal 2.5 s after the first (later than the old 1.3 s window): the window still ends 3.3 s after the
    // first.
    expect(gatherDelayMs({ ...base, now: 2500, firstRemovalAt: 0 })).toBe(800);
  });

  it('imports both halves a debounce after a file that may be the second half came, never before one could have', () => {
    expect(gatherDelayMs({ ...base, now: 1200, firstRemovalAt: 0, addedSinceRemoval: true, firstChangeAt: 0 })).toBe(
      300,
    );
    // Late (the first half 2.5 s ago, the gathering cap passed): still a debounce for the other files moved with it.
    expect(gatherDelayMs({ ...base, now: 2500, firstRemovalAt: 0, addedSinceRemoval: true })).toBe(300);
    // Never past the window's end.
    expect(gatherDelayMs({ ...base, now: 3200, firstRemovalAt: 0, addedSinceRemoval: true })).toBe(100);
    // A file within the first second of a removal is another file (a download finishing), not its second half.
    expect(mayBeSecondHalf(200, 0, 1000)).toBe(false);
    expect(mayBeSecondHalf(1000, 0, 1000)).toBe(true);
    expect(mayBeSecondHalf(5000, undefined, 1000)).toBe(false);
  });

  it('never imports a removal before its second half can have come, nor holds anything past the window', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000),
        fc.nat(10_000),
        fc.option(fc.nat(10_000), { nil: undefined }),
        fc.boolean(),
        (now, first, removal, added) => {
          const at = Math.max(now, first, removal ?? 0);
          const delay = gatherDelayMs({
            ...base,
            now: at,
            firstChangeAt: first,
            firstRemovalAt: removal,
            addedSinceRemoval: added,
          });
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(removal === undefined ? 300 : Math.max(300, removal + 3300 - at));
          if (removal !== undefined) expect(at + delay).toBeGreaterThanOrEqual(removal + 1300);
        },
      ),
    );
  });
});
