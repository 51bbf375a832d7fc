/** When scans run: a request with nothing to scan must not block every scan after it. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ImportService } from '../../src/importer/import.service.js';
import { ScanScheduler } from '../../src/importer/scan-scheduler.js';
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
    const scheduler = new ScanScheduler(new ImportService(temp.db, { logger: silent, probe: false }), roots, { logger: silent, watch: false, rescanIntervalMs: 0 });
    scheduler.request([]);
    expect(scheduler.status().running).toBe(false);
    scheduler.request(roots);
    const status = await until(() => scheduler.status(), (s) => s.last !== undefined && !s.running, 10_000, 'a scan');
    expect(status.last?.summary.added).toBe(1);
    await scheduler.stop();
  });
});
