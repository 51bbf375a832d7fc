/**
 * The part of the guide the grid shows, fetched as it is needed: one `GET /dvr/guide`
 * per page of channels × window of time in view (TanStack Query caches each), put
 * together into rows. Scrolling a fortnight of 500 channels never asks for all of it.
 */
import { useQueries } from '@tanstack/react-query';
import { useMemo } from 'react';
import { guideQueries } from '../../api/guide.queries';
import type { GuideAiring, GuideChannel } from '../../api/server-types';
import { BLOCK, mergeAirings, PAGE_SIZE } from './guide-geometry';

export interface GuideRow {
  channel: Omit<GuideChannel, 'airings'>;
  airings: GuideAiring[];
}

export interface GuideData {
  /** Channels in all; undefined until the first page answers. */
  total: number | undefined;
  /** Row index → its channel and airings, for the rows loaded. */
  rows: Map<number, GuideRow>;
  error: unknown;
  /** Every window asked for has answered (with data or an error). */
  settled: boolean;
  refetch: () => void;
}

export function useGuideData(pages: readonly number[], blocks: readonly number[]): GuideData {
  const windows = useMemo(() => pages.flatMap((page) => blocks.map((start) => ({ page, start }))), [pages, blocks]);
  return useQueries({
    queries: windows.map((w) => ({
      ...guideQueries.page({ start: w.start, end: w.start + BLOCK, offset: w.page * PAGE_SIZE, limit: PAGE_SIZE }),
      placeholderData: undefined,
    })),
    combine: (results) => {
      const rows = new Map<number, GuideRow>();
      const gathered = new Map<number, GuideAiring[][]>();
      let total: number | undefined;
      let error: unknown = null;
      results.forEach((result, index) => {
        const w = windows[index]!;
        if (result.error) error = result.error;
        if (!result.data) return;
        total = result.data.total;
        result.data.channels.forEach(({ airings, ...channel }, i) => {
          const row = w.page * PAGE_SIZE + i;
          if (!rows.has(row)) rows.set(row, { channel, airings: [] });
          const lists = gathered.get(row);
          if (lists) lists.push(airings);
          else gathered.set(row, [airings]);
        });
      });
      for (const [row, lists] of gathered) rows.get(row)!.airings = mergeAirings(lists);
      return {
        total,
        rows,
        error,
        settled: results.every((r) => !r.isPending),
        refetch: () => results.forEach((r) => r.isError && void r.refetch()),
      };
    },
  });
}
