import { describe, expect, it } from 'vitest';
import { ITEM_SORTS, MOVIE_SORTS, parseBooleanParam } from '../../src/model/list-query.js';
import { itemFilterTerms, itemOrderBy, parentOrderBy, whereClause } from '../../src/repositories/list-sql.js';

describe('itemOrderBy', () => {
  it('puts missing values last and breaks ties by id ascending', () => {
    expect(itemOrderBy({ sort: 'duration', order: 'asc' }, 'date_added')).toBe(
      'ORDER BY (i.duration) IS NULL, i.duration ASC, i.id ASC',
    );
  });

  it('uses the sort key’s own default direction: newest first for dates, A to Z for titles', () => {
    expect(itemOrderBy({ sort: 'date_added' }, 'title')).toContain('i.created_at DESC');
    expect(itemOrderBy({ sort: 'episode_title' }, 'date_added')).toContain('ASC, i.id ASC');
  });

  it('falls back to the endpoint’s default order when no sort is given, honouring order', () => {
    expect(itemOrderBy({}, 'position')).toBe('ORDER BY p.position ASC, i.id ASC');
    expect(itemOrderBy({ order: 'desc' }, 'position')).toContain('p.position DESC');
  });

  it('orders episodes naturally by season, then episode', () => {
    const sql = itemOrderBy({}, 'natural');
    expect(sql.indexOf('i.season_number')).toBeLessThan(sql.indexOf('i.episode_number'));
  });

  it('has an expression for every sort value clients may send', () => {
    for (const sort of [...ITEM_SORTS, ...MOVIE_SORTS]) {
      expect(itemOrderBy({ sort }, 'date_added')).toMatch(/^ORDER BY .+ i\.id ASC$/);
    }
  });

  it('leaves out the nulls-last term for columns that are never null, so an index can serve the order', () => {
    expect(itemOrderBy({ sort: 'date_added', order: 'desc' }, 'title')).toBe('ORDER BY i.created_at DESC, i.id ASC');
    expect(parentOrderBy({ sort: 'date_added', order: 'asc' })).toBe('ORDER BY t.created_at ASC, t.id ASC');
  });

  it('sorts by the payload title: the show name for episodes, the group name for videos', () => {
    expect(itemOrderBy({ sort: 'title' }, 'date_added')).toContain(
      "WHEN 'episode' THEN s.name WHEN 'video' THEN g.name",
    );
  });
});

describe('parentOrderBy', () => {
  it('defaults to alphabetical, case-insensitive, ascending', () => {
    expect(parentOrderBy({})).toBe('ORDER BY (t.name COLLATE NOCASE) IS NULL, t.name COLLATE NOCASE ASC, t.id ASC');
  });

  it('sorts by release date, falling back to the year', () => {
    expect(parentOrderBy({ sort: 'date_released', order: 'asc' })).toContain(
      'coalesce(t.release_date, CAST(t.release_year AS TEXT)) ASC',
    );
  });
});

describe('item filters', () => {
  it('binds values instead of splicing them into SQL', () => {
    const where = whereClause(
      itemFilterTerms({ watched: false, favorited: true, verified: false, source: 'recordings' }),
    );
    expect(where.sql).toBe('WHERE (i.watched = ?) AND (i.favorited = ?) AND (i.verified = ?) AND (i.source = ?)');
    expect(where.params).toEqual([0, 1, 0, 'recordings']);
  });

  it('matches everything when no filter is given', () => {
    expect(whereClause(itemFilterTerms({}))).toEqual({ sql: '', params: [] });
  });

  it('reads true/false query values', () => {
    expect(parseBooleanParam('true')).toBe(true);
    expect(parseBooleanParam('false')).toBe(false);
    expect(parseBooleanParam(undefined)).toBeUndefined();
  });
});
