/** DVR rows to the management interface's resources: values left out when absent, credentials never shown. */
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { airingOut, guideOut, jobRef, sourceOut } from '../../src/dvr/dvr-resource-mappers.js';
import { AiringSchema, GuideSchema, JobRef, SourceSchema } from '../../src/model/dvr/dvr.schemas.js';

describe('DVR resource mappers', () => {
  it('shows a source without the credentials its URL carries, and only the values it has', () => {
    const source = sourceOut({
      id: 'm3u-1',
      kind: 'm3u',
      location: 'http://user:pass@iptv.example/get.php?username=u&password=secret',
      name: 'M3U iptv.example',
      stream_limit: 2,
      origin: 'managed',
      refreshed_at: null,
      error: null,
      rejected: 'shrinks',
      skipped: 0,
      channels: 12,
    });
    expect(source).toEqual({
      id: 'm3u-1',
      kind: 'm3u',
      location: 'http://iptv.example/get.php',
      name: 'M3U iptv.example',
      streams: 2,
      origin: 'managed',
      skipped: 0,
      channels: 12,
    });
    expect(Value.Check(SourceSchema, source)).toBe(true);
    const guide = guideOut({
      id: 'xmltv-1',
      location: '/srv/guide.xml',
      origin: 'config',
      refreshed_at: 5,
      error: 'bad',
      rejected: 'shrinks',
      programmes: 3,
      skipped: 1,
      priority: 100,
    });
    expect(guide).toEqual({
      id: 'xmltv-1',
      location: '/srv/guide.xml',
      origin: 'config',
      programmes: 3,
      skipped: 1,
      priority: 100,
      refreshed_at: 5,
      error: 'bad',
      rejected: 'shrinks',
      needs_confirmation: true,
    });
    expect(Value.Check(GuideSchema, guide)).toBe(true);
    // A kind that would not be applied by confirming: said, without needs_confirmation; none without an error (the
    // source's, above).
    expect(
      guideOut({
        id: 'g',
        location: '/g.xml',
        origin: 'config',
        refreshed_at: null,
        error: 'HTTP 500',
        rejected: 'unreadable',
        programmes: 0,
        skipped: 0,
        priority: 1,
      }),
    ).toMatchObject({ rejected: 'unreadable' });
    expect(
      guideOut({
        id: 'g',
        location: '/g.xml',
        origin: 'config',
        refreshed_at: null,
        error: 'HTTP 500',
        rejected: 'unreadable',
        programmes: 0,
        skipped: 0,
        priority: 1,
      }),
    ).not.toHaveProperty('needs_confirmation');
  });

  it('gives a programme and a job reference in the schemas’ shape, absent values left out', () => {
    const airing = airingOut({ start: 100, stop: 200, title: 'News', channels: ['4'], isNew: false });
    expect(airing).toEqual({ start_time: 100, end_time: 200, title: 'News', new: false });
    expect(Value.Check(AiringSchema, airing)).toBe(true);
    const ref = jobRef({ id: 'j1', name: 'News', start_time: 100, end_time: 200, channel: null });
    expect(ref).toEqual({ id: 'j1', name: 'News', start_time: 100, end_time: 200 });
    expect(Value.Check(JobRef, ref)).toBe(true);
  });
});
