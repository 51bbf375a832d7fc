/** Cards built from payloads, grid columns, query strings, the player's start parameter and error messages. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError, errorOf, queryString, seg } from '../src/api/http-client';
import { cardRowHeight, columnsFor, contentCard, itemCard, showCard } from '../src/lib/cards';
import { startParam } from '../src/routes';

describe('cards', () => {
  it('marks a recording being written, resume progress and favorites', () => {
    const card = itemCard(
      { id: 'rec-1', show_id: 's', program_id: 'p', title: 'News', duration: 600, playback_time: 150, favorited: true },
      new Set(['rec-1']),
    );
    expect(card.badges).toEqual(['Recording', 'Favorite']);
    expect(card.progress).toBe(0.25);
    expect(card.target).toEqual({ to: '/{-$mode}/library/items/$id', params: { id: 'rec-1' } });
    expect(card.shape).toBe('wide');
  });

  it('tells shows from items in collection content', () => {
    expect(contentCard({ id: 's1', name: 'Show', episode_count: 3 }).target.to).toBe('/{-$mode}/library/shows/$id');
    expect(contentCard({ id: 'm1', program_id: 'p', title: 'Film', duration: 1, playback_time: 0 }).target.to).toBe(
      '/{-$mode}/library/items/$id',
    );
    expect(showCard({ id: 's1', name: 'Show', episode_count: 1, number_unwatched: 1 }).subtitle).toBe(
      '1 episode · 1 unwatched',
    );
  });

  it("reckons a row's height from the art's shape and the fixed text lines, in the page's own type size", () => {
    expect(cardRowHeight(200, 9 / 16, 16, 16)).toBeCloseTo(192 * (9 / 16) + 54.4 + 16);
    // TV mode's larger type makes the same card taller.
    expect(cardRowHeight(200, 9 / 16, 26, 16)).toBeGreaterThan(cardRowHeight(200, 9 / 16, 16, 16));
  });

  it('fits at least one column in any width', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ min: -100, max: 100_000 }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY)),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 100 }),
        (width, min, gap) => {
          const columns = columnsFor(width, min, gap);
          expect(columns).toBeGreaterThanOrEqual(1);
          if (Number.isFinite(width) && width > 0 && columns > 1)
            expect(columns * min + (columns - 1) * gap).toBeLessThanOrEqual(width + 1e-6);
        },
      ),
    );
  });
});

describe('requests', () => {
  it('builds query strings from the values that are set, and escapes ids in paths', () => {
    expect(queryString({ source: 'recordings', sort: undefined, order: 'desc', q: '' })).toBe(
      '?source=recordings&order=desc',
    );
    expect(queryString({})).toBe('');
    expect(seg('a/b?c')).toBe('a%2Fb%3Fc');
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })), (values) => {
        const parsed = new URLSearchParams(queryString(values).slice(1));
        for (const [key, value] of Object.entries(values)) expect(parsed.get(key)).toBe(value);
      }),
    );
  });

  it("reads the server's error message, and describes answers that are not JSON", async () => {
    const json = await errorOf(
      new Response(JSON.stringify({ status: 404, code: 'not_found', message: 'No show with id x.' }), { status: 404 }),
    );
    expect(json).toBeInstanceOf(ApiError);
    expect([json.status, json.code, json.message]).toEqual([404, 'not_found', 'No show with id x.']);
    const html = await errorOf(new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' }));
    expect(html.message).toBe('The server answered 502 Bad Gateway.');
  });

  it('starts playback at a positive ?start= only', () => {
    expect(startParam({ start: '754.5' })).toEqual({ start: 754.5 });
    // The router parses search values as JSON: objects that cannot become a number are the start.
    expect(startParam({ start: { toString: 0 }, t: [{ valueOf: 1 }] })).toEqual({ start: 0 });
    expect(startParam({ start: ' ', t: '7' })).toEqual({ start: 0, t: 7 });
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (value, ticket) => {
        const { start, t } = startParam({ start: value, t: ticket });
        expect(Number.isFinite(start) && start >= 0).toBe(true);
        expect(t === undefined || (Number.isSafeInteger(t) && t > 0)).toBe(true);
      }),
    );
  });
});
