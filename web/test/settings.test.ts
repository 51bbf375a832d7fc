/** Settings' wording of what the server reports: sizes, the disk, the scan, a refresh, the uptime. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ServerStatus } from '../src/api/server-types';
import {
  ago,
  diskUse,
  formatBytes,
  formatUptime,
  freshness,
  isHeldBack,
  collectionSummary,
  eventsLine,
  lastScan,
  playerActivity,
  readableReason,
  refreshLines,
  scanProgress,
  scanShare,
  timeLeft,
} from '../src/sections/settings/settings-view';

type Scan = NonNullable<ServerStatus['scan']>;
const scan = (fields: Partial<Scan> = {}): Scan => ({
  running: false,
  phase: 'idle',
  files_seen: 0,
  probed: 0,
  to_probe: 0,
  thumbnails: 0,
  to_thumbnail: 0,
  not_media: { count: 0, files: [] },
  ...fields,
});

describe('Settings wording', () => {
  it('writes sizes as disks are sold', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(83_200_000_000)).toBe('83.2 GB');
    expect(formatBytes(271_000_000_000)).toBe('271 GB');
    expect(formatBytes(-1)).toBe('');
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e20, noNaN: true }), (bytes) => {
        expect(formatBytes(bytes)).toMatch(/^\d+(\.\d)? (bytes|kB|MB|GB|TB|PB)$/);
      }),
    );
  });

  it('measures the recordings disk as a share in use, or says nothing it cannot know', () => {
    expect(diskUse({ total: 1000, free: 250 })).toEqual({ used: 0.75, text: '250 bytes free of 1.0 kB' });
    expect(diskUse(undefined)).toBeUndefined();
    expect(diskUse({ total: 0, free: 0 })).toBeUndefined();
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 50 }),
        fc.integer({ min: -(2 ** 50), max: 2 ** 51 }),
        (total, free) => {
          const use = diskUse({ total, free })!;
          expect(use.used >= 0 && use.used <= 1).toBe(true);
        },
      ),
    );
  });

  it('says what the importer does and how the last scan went', () => {
    expect(scanProgress(scan())).toBe('Not scanning now.');
    expect(scanProgress(scan({ running: true, phase: 'probing', files_seen: 40, probed: 3, to_probe: 10 }))).toBe(
      'Reading the files: 3 of 13 read.',
    );
    expect(
      scanProgress(
        scan({
          running: true,
          phase: 'probing',
          probed: 3000,
          to_probe: 17_000,
          files_per_second: 1800.4,
          seconds_left: 130,
        }),
      ),
    ).toBe('Reading the files: 3,000 of 20,000 read, 1,800 a second, about 2 min left.');
    expect(
      scanProgress(scan({ running: true, phase: 'thumbnails', thumbnails: 5, to_thumbnail: 15, seconds_left: 9 })),
    ).toBe('Making thumbnails: 5 of 20 made, about 9 s left.');
    expect(scanProgress(scan({ running: true, phase: 'walking', files_seen: 12, files_per_second: 300 }))).toBe(
      'Looking through the folders: 12 files found, 300 a second.',
    );
    expect(scanShare(scan({ running: true, phase: 'probing', probed: 1, to_probe: 3 }))).toBe(0.25);
    expect(scanShare(scan({ running: true, phase: 'walking', files_seen: 9 }))).toBeUndefined();
    expect(scanShare(scan({ phase: 'probing', probed: 1, to_probe: 3 }))).toBeUndefined();
    expect([timeLeft(42), timeLeft(600), timeLeft(4800), timeLeft(3590), timeLeft(7170)]).toEqual([
      '42 s',
      '10 min',
      '1 h 20 min',
      '1 h 0 min',
      '2 h 0 min',
    ]);
    expect(lastScan(scan())).toBe('No scan has finished yet.');
    const last = {
      finished_at: 1_000_000,
      added: 7,
      updated: 0,
      moved: 1,
      removed: 0,
      unchanged: 2,
      failed: 1,
      duration_ms: 10,
      problems: [],
    };
    expect(lastScan(scan({ last }), 1_000_000 + 5 * 60_000)).toBe(
      'Last scan 5 minutes ago: 7 added, 1 moved (2 unchanged); 1 could not be imported.',
    );
    expect(lastScan(scan({ last: { ...last, added: 0, moved: 0, failed: 0 } }), 1_000_000)).toBe(
      'Last scan just now: no changes (2 unchanged).',
    );
  });

  it('writes times past and uptimes for people', () => {
    expect(ago(0, 30_000)).toBe('just now');
    expect(ago(0, 60_000)).toBe('1 minute ago');
    expect(ago(0, 3 * 3600_000)).toBe('3 hours ago');
    expect(ago(0, 2 * 86400_000)).toBe('2 days ago');
    expect(ago(10, 0)).toBe('just now');
    expect(formatUptime(59)).toBe('0 min');
    expect(formatUptime(2 * 3600 + 5 * 60)).toBe('2 h 05 min');
    expect(formatUptime(3 * 86400 + 4 * 3600)).toBe('3 days 4 h');
  });

  it('lists a refresh line by line, named as the lists name them, failures with their reason', () => {
    const sources = [
      {
        id: 's1',
        kind: 'm3u' as const,
        location: '/x.m3u',
        name: 'M3U /x.m3u',
        streams: 2,
        origin: 'config' as const,
        skipped: 0,
        channels: 3,
      },
    ];
    const guides = [
      { id: 'g1', location: '/guide.xml', origin: 'config' as const, programmes: 156, skipped: 0, priority: 1 },
    ];
    const lines = refreshLines(
      {
        sources: [
          { id: 's1', channels: 3 },
          { id: 'gone', error: 'HTTP 404' },
        ],
        guides: [{ id: 'g1', programmes: 156, skipped: 2 }],
      },
      sources,
      guides,
    );
    expect(lines).toEqual([
      { name: 'M3U /x.m3u', ok: true, text: '3 channels' },
      { name: 'gone', ok: false, text: 'failed: HTTP 404 (the channels from the last good read are kept)' },
      { name: '/guide.xml', ok: true, text: '156 programmes, 2 malformed entries skipped' },
    ]);
    expect(freshness({ error: 'HTTP 500' })).toBe('Last read failed: HTTP 500');
    expect(freshness({ error: 'HTTP 500', refreshed_at: 0 }, 3 * 3600_000)).toBe(
      'Last read failed: HTTP 500 (kept what was read 3 hours ago)',
    );
    expect(freshness({ refreshed_at: 0 }, 120_000)).toBe('Read 2 minutes ago');
    expect(freshness({})).toBe('Not read yet');
  });

  it('says why a refresh was held back without the API call the server suggests to other clients', () => {
    // As src/dvr/sources/source-refresh.ts stores and answers it.
    const held =
      'M3U /x.m3u: it would remove 2 of the 3 channels (7, 9), more than 50 % of them; it was not applied; ' +
      'if the source really changed, confirm it: POST /dvr/sources/s1/refresh?accept=true (antenna refresh --source s1 --accept)';
    expect(isHeldBack(held)).toBe(true);
    expect(readableReason(held, 'M3U /x.m3u')).toBe(
      'it would remove 2 of the 3 channels (7, 9), more than 50 % of them',
    );
    expect(freshness({ error: held, refreshed_at: 0 }, 60_000, 'M3U /x.m3u')).toBe(
      'Last refresh held back: it would remove 2 of the 3 channels (7, 9), more than 50 % of them (kept what was read 1 minute ago). Refresh it to apply it anyway.',
    );
    // Any other wording is shown whole: a failure is not held back, and a name that differs stays.
    expect(isHeldBack('M3U /x.m3u: HTTP 500')).toBe(false);
    expect(readableReason('M3U /x.m3u: HTTP 500', 'other')).toBe('M3U /x.m3u: HTTP 500');
    const sources = [
      {
        id: 's1',
        kind: 'm3u' as const,
        location: '/x.m3u',
        name: 'M3U /x.m3u',
        streams: 2,
        origin: 'config' as const,
        skipped: 0,
        channels: 3,
      },
    ];
    expect(
      refreshLines(
        { sources: [{ id: 's1', error: held, rejected: 'shrinks', needs_confirmation: true }], guides: [] },
        sources,
        [],
      ),
    ).toEqual([
      {
        name: 'M3U /x.m3u',
        ok: false,
        text: 'held back: it would remove 2 of the 3 channels (7, 9), more than 50 % of them (Apply anyway, beside it below, applies it)',
      },
    ]);
  });
});

describe("a player's activity", () => {
  it('says what a TV plays, paused or not, or that it is idle', () => {
    expect(playerActivity({ status: 'stopped', muted: false })).toBe('Idle');
    expect(
      playerActivity({
        status: 'playing',
        muted: false,
        channel: { number: '7', name: 'Seven' },
        now_playing: { title: 'News' },
      }),
    ).toBe('Playing channel 7 Seven: News');
    expect(
      playerActivity({
        status: 'paused',
        muted: false,
        now_playing: { title: 'Harbour Lights', episode_title: 'Pilot' },
      }),
    ).toBe('Paused Harbour Lights: Pilot');
    expect(playerActivity({ status: 'playing', muted: false, channel: { number: '9', name: 'Nine' } })).toBe(
      'Playing channel 9 Nine',
    );
    expect(playerActivity({ status: 'playing', muted: false })).toBe('Playing');
  });
});

describe('a channel collection in a line', () => {
  it('counts and names its first channels, or says what an empty one means', () => {
    expect(collectionSummary(['2', '5.1'], false)).toBe('2 channels: 2, 5.1');
    expect(collectionSummary(['7'], true)).toBe('1 channel: 7');
    expect(
      collectionSummary(
        Array.from({ length: 10 }, (_, i) => String(i + 1)),
        false,
      ),
    ).toBe('10 channels: 1, 2, 3, 4, 5, 6, 7, 8, …');
    expect(collectionSummary([], true)).toMatch(/star channels/);
    expect(collectionSummary([], false)).toBe('No channels yet.');
  });
});

describe("the server's events as notifications", () => {
  it('shows what went wrong and a recording starting or ending, the errors longest', async () => {
    const { isShown, noticeOf } = await import('../src/api/event-feed');
    expect(isShown({ kind: 'recording.failed', severity: 'error' })).toBe(true);
    expect(isShown({ kind: 'recording.conflict', severity: 'warning' })).toBe(true);
    expect(isShown({ kind: 'recording.completed', severity: 'info' })).toBe(true);
    expect(isShown({ kind: 'player.online', severity: 'info' })).toBe(false);
    expect(noticeOf({ kind: 'recording.failed', severity: 'error', message: 'Recording News failed: x.' })).toEqual({
      title: 'Recording failed',
      message: 'Recording News failed: x.',
      ms: 15_000,
    });
    expect(noticeOf({ kind: 'disk.low', severity: 'warning', message: 'm' }).ms).toBe(10_000);
    const { newEvents } = await import('../src/api/event-feed');
    const event = (id: number) =>
      ({ id, kind: 'disk.low', at: 0, severity: 'warning', message: '', data: {} }) as const;
    expect(newEvents([event(3), event(2)], undefined)).toEqual([]);
    expect(newEvents([event(5), event(4), event(3)], 3).map((e) => e.id)).toEqual([4, 5]);
  });
});

describe('eventsLine', () => {
  it('says a broker away and failing webhooks, and nothing when all is told', () => {
    expect(eventsLine(undefined)).toBeUndefined();
    expect(eventsLine({ webhooks_failing: [] })).toBeUndefined();
    expect(eventsLine({ webhooks_failing: [], mqtt: { url: 'mqtt://ha:1883', connected: true } })).toBe(
      'MQTT connected to mqtt://ha:1883',
    );
    const hook = { id: 1, url: 'http://x/', error: 'the receiver answered 500', failing_since: 0, pending: 2 };
    expect(
      eventsLine({ webhooks_failing: [hook], mqtt: { url: 'mqtt://ha:1883', connected: false, error: 'refused' } }),
    ).toBe(
      'MQTT not connected to mqtt://ha:1883: refused; the webhook http://x/ is failing: the receiver answered 500',
    );
    expect(eventsLine({ webhooks_failing: [hook, { ...hook, id: 2 }] })).toBe('2 webhooks are failing (see Webhooks)');
  });
});
