import { describe, expect, it } from 'vitest';
import { COMSKIP_INI, LIVE_SETTINGS, comskipIni, liveMarks, withIniSettings } from '../../src/dvr/recording/comskip.js';
import { recordingsToStart } from '../../src/dvr/recording/live-commercials.js';

const settingsOf = (ini: string) =>
  new Map(
    ini
      .split('\n')
      .filter((line) => line && !line.startsWith(';'))
      .map((line) => line.split('=') as [string, string]),
  );

describe('withIniSettings', () => {
  it('replaces the named settings in place and adds the others before the last newline', () => {
    const ini = '; a comment\nlive_tv=0\nverbose=0\n';
    expect(withIniSettings(ini, { live_tv: 1, output_incommercial: 1 })).toBe(
      '; a comment\nlive_tv=1\nverbose=0\noutput_incommercial=1\n',
    );
  });

  it('leaves comments and other lines alone, spaces round the key included', () => {
    expect(withIniSettings('; live_tv=0 is the default\n live_tv = 0', { live_tv: 1 })).toBe(
      '; live_tv=0 is the default\nlive_tv=1',
    );
    expect(withIniSettings('a=1\n', {})).toBe('a=1\n');
  });
});

describe('comskipIni', () => {
  it('is COMSKIP_INI for a finished recording', () => {
    expect(comskipIni()).toBe(COMSKIP_INI);
  });

  it('follows a growing file and tells whether its last break may be open, the rest as COMSKIP_INI has it', () => {
    const live = settingsOf(comskipIni({ live: true }));
    const base = settingsOf(COMSKIP_INI);
    expect(live.get('live_tv')).toBe('1');
    expect(Number(live.get('live_tv_retries'))).toBeGreaterThan(0);
    expect(live.get('output_incommercial')).toBe('1');
    expect(live.get('output_edl')).toBe('1');
    // Open until the live pass can no longer extend the break: 60 s (max_commercial_size) at up to 60 fps.
    expect(Number(live.get('incommercial_frames'))).toBeGreaterThanOrEqual(
      Number(live.get('max_commercial_size')) * 60,
    );
    for (const [key, value] of base) if (!(key in LIVE_SETTINGS)) expect(live.get(key), key).toBe(value);
  });
});

describe('liveMarks', () => {
  const edl = '65.00\t110.00\t0\n176.00\t200.00\t0\n';

  it('tells every break once comskip says the last one ended', () => {
    expect(liveMarks(edl, '0\n')).toEqual([65, 110, 176, 200]);
  });

  it('holds back the last break while it may still be open at the live edge', () => {
    expect(liveMarks(edl, '1\n')).toEqual([65, 110]);
    expect(liveMarks('65.00\t110.00\t0\n', '1')).toEqual([]);
  });

  it('tells nothing before comskip judged anything, or of an empty EDL', () => {
    expect(liveMarks(edl, null)).toEqual([]);
    expect(liveMarks('', '1')).toEqual([]);
    expect(liveMarks('', '0')).toEqual([]);
  });
});

describe('recordingsToStart', () => {
  const waiting = [
    { itemId: 'a', bytes: 5e6, notBefore: 0 },
    { itemId: 'b', bytes: 100, notBefore: 0 },
    { itemId: 'c', bytes: 5e6, notBefore: 0 },
    { itemId: 'd', bytes: 5e6, notBefore: 2_000 },
  ];

  it('starts the oldest recordings with enough video while slots are free', () => {
    expect(recordingsToStart(waiting, 0, 2, 2e6, 1_000)).toEqual(['a', 'c']);
    expect(recordingsToStart(waiting, 1, 2, 2e6, 1_000)).toEqual(['a']);
    expect(recordingsToStart(waiting, 2, 2, 2e6, 1_000)).toEqual([]);
    expect(recordingsToStart(waiting, 3, 2, 2e6, 1_000)).toEqual([]);
  });

  it('waits out the pause after a run that ended by itself', () => {
    expect(recordingsToStart(waiting, 0, 4, 2e6, 1_000)).toEqual(['a', 'c']);
    expect(recordingsToStart(waiting, 0, 4, 2e6, 2_000)).toEqual(['a', 'c', 'd']);
  });
});
