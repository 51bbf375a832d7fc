import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeRule, parseTime, refreshRequest, ruleBody } from '../../src/cli/remote.commands.js';
import { guideKey, matchGuideChannels } from '../../src/dvr/lineup/guide-match.js';
import { backoffMs, judgeRecording, type RecordingOutcome } from '../../src/dvr/recording/recorder.js';
import { localDate, recordingRelativePath, safeName, uniquePath } from '../../src/dvr/recording/recording-paths.js';
import { readSourceText, shownLocation } from '../../src/dvr/sources/source-reader.js';
import { DvrSourcesService } from '../../src/dvr/sources/dvr-sources.service.js';
import { openMemoryDatabase } from '../../src/db/database.js';

const START = Date.UTC(2026, 10, 22, 20, 0, 0) / 1000;

describe('recording paths', () => {
  it('names episodes and movies the way the importer reads them back', () => {
    expect(
      recordingRelativePath({
        kind: 'episode',
        title: 'The Show',
        season: 1,
        episode: 2,
        episodeTitle: 'Pilot',
        start: START,
      }),
    ).toBe(`TV/The Show/The Show S01E02 ${localDate(START)} Pilot.ts`);
    expect(recordingRelativePath({ kind: 'movie', title: 'Heat', year: 1995, start: START })).toBe(
      'Movies/Heat (1995).ts',
    );
    expect(recordingRelativePath({ kind: 'episode', title: 'News', start: START })).toMatch(
      /^TV\/News\/News \d{4}-\d{2}-\d{2} \d{2}\.\d{2}\.ts$/,
    );
  });

  it('takes leading dots and spaces off together, and trailing ones after cutting to length (found by the property below)', () => {
    expect(safeName('. .0')).toBe('0');
    expect(safeName('abc. def', 4)).toBe('abc');
  });

  it('property: a name never escapes its folder or holds a separator or control character', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const name = safeName(text);
        expect(name.length).toBeGreaterThan(0);
        // eslint-disable-next-line no-control-regex
        expect(name).not.toMatch(/[/\\\u0000-\u001f]/);
        expect(name).not.toMatch(/^\.|[. ]$/);
        const path = recordingRelativePath({ kind: 'episode', title: text, episodeTitle: text, start: START });
        expect(path.split('/')).toHaveLength(3);
        expect(path.split('/')).not.toContain('..');
      }),
    );
  });

  it('finds a free name', () => {
    const taken = new Set(['a.ts', 'a (2).ts']);
    expect(uniquePath('a.ts', (p) => taken.has(p))).toBe('a (3).ts');
    expect(uniquePath('b.ts', (p) => taken.has(p))).toBe('b.ts');
  });
});

describe('guide matching', () => {
  const guideChannels = [
    { guide_id: 'g', xmltv_id: 'one.example', number: null, displayNames: ['One HD'] },
    { guide_id: 'g', xmltv_id: 'two.example', number: '2.1', displayNames: ['Two'] },
    { guide_id: 'g', xmltv_id: 'three.example', number: null, displayNames: ['7', 'Three'] },
  ];
  it('matches by tvg-id, then number, then name', () => {
    const map = matchGuideChannels(
      [
        { number: '9', name: 'Whatever', guide_id: 'one.example', guide_name: null },
        { number: '2.1', name: 'Nope', guide_id: null, guide_name: null },
        { number: '7', name: 'x', guide_id: null, guide_name: null },
        { number: '8', name: 'three', guide_id: 'missing', guide_name: null },
        { number: '10', name: 'Unknown', guide_id: null, guide_name: null },
      ],
      guideChannels,
    );
    expect(map.get(guideKey('g', 'one.example'))).toEqual(['9']);
    expect(map.get(guideKey('g', 'two.example'))).toEqual(['2.1']);
    expect(map.get(guideKey('g', 'three.example'))).toEqual(['7', '8']);
    expect([...map.values()].flat()).not.toContain('10');
  });
});

describe('judging a recording', () => {
  const base: RecordingOutcome = {
    bytes: 1000,
    firstByteAt: 1000,
    reachedEnd: true,
    lostForGood: false,
    damaged: false,
    gaps: 0,
    continuityErrors: 0,
  };
  it('a clean recording is completed and nothing else', () => {
    expect(judgeRecording(base, 0)).toEqual({
      delayed: false,
      cancelled: false,
      corrupted: false,
      completed: true,
      failed: false,
    });
  });
  it('late first bytes: delayed', () => {
    expect(judgeRecording({ ...base, firstByteAt: 9000 }, 0).delayed).toBe(true);
  });
  it('gaps: corrupted with the count in the error', () => {
    expect(judgeRecording({ ...base, damaged: true, gaps: 2 }, 0)).toMatchObject({
      corrupted: true,
      completed: true,
      error: expect.stringContaining('2 interruption'),
    });
  });
  it('stopped by the user, lost for good, or the disk full: cancelled, not completed', () => {
    expect(judgeRecording({ ...base, stoppedBy: 'user', reachedEnd: false }, 0)).toMatchObject({
      cancelled: true,
      completed: false,
      error: 'stopped by the user',
    });
    expect(judgeRecording({ ...base, lostForGood: true, streamError: 'HTTP 404' }, 0)).toMatchObject({
      cancelled: true,
      corrupted: true,
      completed: false,
    });
    expect(judgeRecording({ ...base, diskError: 'the disk is full', reachedEnd: false }, 0)).toMatchObject({
      cancelled: true,
      error: 'the disk is full',
    });
  });
  it('nothing written: failed, with the stream error', () => {
    expect(judgeRecording({ ...base, bytes: 0, streamError: 'answered HTTP 404' }, 0)).toMatchObject({
      failed: true,
      completed: false,
      error: 'nothing was recorded: answered HTTP 404',
    });
  });
  it('resumed after a restart: corrupted; back only after the end: cancelled', () => {
    expect(judgeRecording({ ...base, damaged: true, gaps: 1 }, 0, { resumed: true })).toMatchObject({
      corrupted: true,
      completed: true,
    });
    const late = judgeRecording({ ...base, firstByteAt: undefined } as RecordingOutcome, 0, { resumed: true });
    expect(late).toMatchObject({ cancelled: true, corrupted: true, completed: false });
  });
  it('backs off to at most 30 s', () => {
    expect([0, 1, 2, 3, 10, 50].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 30_000, 30_000]);
  });
});

describe('antenna rule add', () => {
  it('builds each rule type', () => {
    expect(ruleBody('series', 'The Show', { newOnly: true, keep: '5' })).toEqual({
      type: 'series',
      title: 'The Show',
      new_only: true,
      keep: 5,
    });
    expect(ruleBody('keyword', 'volcano', { channels: '2, 3', priority: '-1' })).toEqual({
      type: 'keyword',
      keyword: 'volcano',
      channels: ['2', '3'],
      priority: -1,
    });
    expect(ruleBody('slot', '4', { start: '1800000000', duration: '30', weekly: true })).toEqual({
      type: 'slot',
      channel: '4',
      start_time: 1_800_000_000,
      duration: 1800,
      weekly: true,
    });
    expect(ruleBody('program', '4', { start: '1800000000', paddingAfter: '120' })).toEqual({
      type: 'program',
      channel: '4',
      start_time: 1_800_000_000,
      padding_after: 120,
    });
  });
  it('refuses what cannot be a rule, with a message', () => {
    expect(() => ruleBody('weekly', 'x', {})).toThrow(
      "'weekly' is not a rule type: use series, keyword, slot or program.",
    );
    expect(() => ruleBody('slot', '4', { start: 'bogus' })).toThrow(/'bogus' is not a time/);
    expect(() => ruleBody('slot', '4', { start: '1800000000' })).toThrow(/--duration/);
    expect(() => ruleBody('program', '4', {})).toThrow(/--start/);
    expect(() => ruleBody('series', 'x', { keep: 'many' })).toThrow(/--keep must be a whole number/);
    expect(() => parseTime('tomorrow-ish')).toThrow(/not a time/);
  });
  it('describes rules in one line', () => {
    expect(describeRule({ type: 'keyword', keyword: 'volcano', keep: 3 })).toBe('keyword "volcano" (keep 3)');
  });
});

describe('antenna refresh', () => {
  it('refreshes everything, or one source or guide, confirmed with --accept', () => {
    expect(refreshRequest({})).toMatchObject({ method: 'POST', path: '/dvr/refresh' });
    expect(refreshRequest({ source: 'm3u-abc' })).toMatchObject({
      method: 'POST',
      path: '/dvr/sources/m3u-abc/refresh',
    });
    expect(refreshRequest({ guide: 'xmltv-1', accept: true })).toMatchObject({
      method: 'POST',
      path: '/dvr/guides/xmltv-1/refresh?accept=true',
    });
    expect(() => refreshRequest({ accept: true })).toThrow(
      /--accept confirms the refresh of one source or guide: give --source ID or --guide ID/,
    );
    expect(() => refreshRequest({ source: 'a', guide: 'b' })).toThrow(/not both/);
  });
  it('says what each read, or why it was not applied', () => {
    const one = refreshRequest({ source: 'm3u-abc' });
    expect(one.describe({ id: 'm3u-abc', channels: 4, skipped: 1 })).toBe('m3u-abc: 4 read, 1 skipped');
    expect(
      one.describe({
        id: 'm3u-abc',
        error: 'M3U x: it lists no channels',
        rejected: 'empty',
        needs_confirmation: true,
      }),
    ).toBe('m3u-abc: not applied: M3U x: it lists no channels');
    const all = refreshRequest({});
    expect(
      all.describe({
        sources: [{ id: 's', channels: 2, skipped: 0 }],
        guides: [{ id: 'g', error: 'guide g: XMLTV document cut short' }],
      }),
    ).toBe('s: 2 read, 0 skipped\ng: not applied: guide g: XMLTV document cut short');
  });
});

describe('source locations in the API and logs', () => {
  it('never show the credentials an IPTV URL carries', async () => {
    expect(shownLocation('http://user:secret@iptv.example:8080/get.php?username=u&password=p&type=m3u')).toBe(
      'http://iptv.example:8080/get.php',
    );
    expect(shownLocation('/srv/channels.m3u')).toBe('/srv/channels.m3u');
    // Schemes Antenna refuses are named in the refusal, without what they carry either.
    await expect(readSourceText('ftp://user:secret@files.example/list.m3u')).rejects.toThrow(
      /^ftp:\/\/files\.example\/list\.m3u: only http/,
    );
    expect(shownLocation('ftp://user:secret@files.example/list.m3u?token=t')).toBe('ftp://files.example/list.m3u');
    expect(shownLocation('http://user:secret@[bad/get.php?password=p')).toBe('http://[bad/get.php');
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https', 'ftp', 'rtsp', 'udp'),
        fc.webSegment(),
        fc.domain(),
        fc.webPath(),
        (scheme, user, host, path) => {
          // Exact, not a substring check: a generated host or path may itself contain a short marker.
          const shown = shownLocation(`${scheme}://${user}:pw-${user}@${host}${path}?password=q-${user}#f`);
          expect(shown).toBe(shownLocation(`${scheme}://${host}${path}`));
          expect(shown).not.toMatch(/[?#]/);
        },
      ),
      { numRuns: 2000 },
    );
    const db = openMemoryDatabase();
    const sources = new DvrSourcesService(db);
    const source = sources.addSource({
      kind: 'm3u',
      location: 'http://iptv.example/get.php?username=u&password=secret',
    });
    expect(source.name).toBe('M3U iptv.example');
    expect(JSON.stringify(sources.listSources().map((s) => s.name))).not.toContain('secret');
    db.close();
  });
});
