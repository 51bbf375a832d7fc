/**
 * The guide grid: channels down, time across, in one scrolling box with the channel
 * column and the time ruler stuck to its edges and a line at now. Only the rows in
 * view are in the page (TanStack Virtual) and only the programmes near the visible
 * hours; arrows move between programmes (norigin), Enter or a click opens one.
 */
import { doesFocusableExist, setFocus, useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { useVirtualizer } from '@tanstack/react-virtual';
import { forwardRef, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { GuideAiring } from '../../api/server-types';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { type GuideRow, useGuideData } from './guide-data';
import {
  airingAt,
  airingsIn,
  blocksFor,
  boxOf,
  clockOf,
  dayOf,
  episodeCode,
  isPlaceholder,
  pagesFor,
  type Scale,
  spanWidth,
  ticksBetween,
  timeAt,
  xOf,
} from './guide-geometry';

export interface GridSizes {
  label: number;
  row: number;
  ruler: number;
  pxPerMinute: number;
}

export const SIZES: Record<'desktop' | 'tv', GridSizes> = {
  desktop: { label: 170, row: 64, ruler: 36, pxPerMinute: 7 },
  tv: { label: 230, row: 104, ruler: 56, pxPerMinute: 10 },
};

/** Programmes this far either side of the visible hours are in the page, so arrows find the next one. */
const MARGIN = 2 * 3600;

export const cellKey = (number: string, start: number) => `guide-${number}-${start}`;

export interface GuideGridHandle {
  /** Scrolls to `time` (epoch seconds) at the left edge, or to now. */
  scrollToTime(time: number): void;
  /** The time at the left edge. */
  leftTime(): number;
}

export interface OpenedProgramme {
  row: GuideRow;
  airing: GuideAiring;
}

export const GuideGrid = forwardRef<
  GuideGridHandle,
  { origin: number; now: number; onOpen: (opened: OpenedProgramme) => void }
>(function GuideGrid({ origin, now, onOpen }, handle) {
  const sizes = SIZES[useMode() === 'tv' ? 'tv' : 'desktop'];
  const scale: Scale = useMemo(() => ({ origin, pxPerMinute: sizes.pxPerMinute }), [origin, sizes.pxPerMinute]);
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ left: 0, width: 1200 });
  const [height, setHeight] = useState(500);
  const visibleFrom = timeAt(view.left, scale);
  const visibleTo = timeAt(view.left + view.width - sizes.label, scale);
  useImperativeHandle(handle, () => ({
    scrollToTime: (time) => scroller.current?.scrollTo({ left: Math.max(0, xOf(time, scale)) }),
    leftTime: () => timeAt(scroller.current?.scrollLeft ?? 0, scale),
  }));

  const [total, setTotal] = useState<number | undefined>(undefined);
  const virtualizer = useVirtualizer({
    count: total ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => sizes.row,
    overscan: 4,
    paddingStart: sizes.ruler,
  });
  const items = virtualizer.getVirtualItems();
  const pages = useMemo(
    () => (total === undefined ? [0] : pagesFor(items[0]?.index ?? 0, items.at(-1)?.index ?? -1)),
    [total, items],
  );
  const blocks = useMemo(() => blocksFor(visibleFrom - 3600, visibleTo + 3600, scale), [visibleFrom, visibleTo, scale]);
  const data = useGuideData(pages, blocks);
  useEffect(() => {
    if (data.total !== undefined) setTotal(data.total);
  }, [data.total]);
  const [openingKey, opened] = useOpeningKey(data.rows.get(0), now, data.settled);
  // Never before the origin: an airing that ended there (a window reaches back to its 6-hour
  // boundary) would be a sliver at the grid's left edge, hidden under the next but focusable.
  const nearFrom = Math.max(origin, visibleFrom - MARGIN);
  /** Up or Down from a cell: the programme on the air at the same time in the row above or below (see airingAt). */
  const rowNeighbour = (index: number, step: number, time: number): string | undefined => {
    const row = data.rows.get(index + step);
    const airing = row && airingAt(airingsIn(row.airings, nearFrom, visibleTo + MARGIN), time);
    return row && airing ? cellKey(row.channel.number, airing.start_time) : undefined;
  };
  // Measured once the grid (not "Loading") is in the page, and again whenever the window or the box changes size.
  const shown = total !== undefined;
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!shown || !element) return;
    const measure = () => {
      setHeight(Math.max(240, window.innerHeight - element.getBoundingClientRect().top - window.scrollY - 12));
      setView({ left: element.scrollLeft, width: element.clientWidth });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [shown]);

  const onScroll = () => {
    const element = scroller.current;
    if (element && element.scrollLeft !== view.left) setView({ left: element.scrollLeft, width: element.clientWidth });
  };
  if (total === undefined && data.error) return <ErrorNotice error={data.error} retry={data.refetch} />;
  if (total === undefined) return <Loading what="the guide" />;
  if (total === 0)
    return (
      <p className="empty">
        No channels yet. Add an M3U playlist or an HDHomeRun tuner under DVR, with an XMLTV guide.
      </p>
    );
  const width = sizes.label + spanWidth(scale);
  return (
    <>
      {data.error !== null && <ErrorNotice error={data.error} retry={data.refetch} />}
      <div
        ref={scroller}
        className="guide-scroller"
        role="region"
        aria-label="Programme guide"
        style={{
          height: Math.min(height, virtualizer.getTotalSize() + 2),
          scrollPaddingLeft: sizes.label,
          scrollPaddingTop: sizes.ruler,
        }}
        onScroll={onScroll}
      >
        <div
          className="guide-canvas"
          style={{
            width,
            height: virtualizer.getTotalSize(),
            ['--label' as string]: `${sizes.label}px`,
            ['--row' as string]: `${sizes.row}px`,
          }}
        >
          <div className="guide-ruler" style={{ height: sizes.ruler, width }} aria-hidden="true">
            <span className="guide-corner" style={{ width: sizes.label }}>
              {dayOf(Math.max(visibleFrom, origin), now)}
            </span>
            {ticksBetween(Math.max(origin, visibleFrom - MARGIN), visibleTo + MARGIN).map((tick) => (
              <span key={tick} className="guide-tick" style={{ left: sizes.label + xOf(tick, scale) }}>
                {clockOf(tick)}
              </span>
            ))}
          </div>
          <div
            className="guide-now"
            style={{ left: sizes.label + xOf(now, scale), top: sizes.ruler }}
            aria-hidden="true"
          />
          {items.map((item) => {
            const row = data.rows.get(item.index);
            return (
              <div key={item.key} className="guide-row" style={{ top: item.start, height: item.size, width }}>
                {row ? (
                  <ChannelRow
                    row={row}
                    index={item.index}
                    neighbour={rowNeighbour}
                    visibleFrom={visibleFrom}
                    scale={scale}
                    sizes={sizes}
                    from={nearFrom}
                    to={visibleTo + MARGIN}
                    now={now}
                    onOpen={onOpen}
                    opening={openingKey}
                    onOpened={opened}
                  />
                ) : (
                  <span className="guide-label guide-pending" style={{ width: sizes.label }}>
                    …
                  </span>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
});

/**
 * The cell to focus once, when the first channel arrives: what is on it now, so a remote's
 * first arrow or Enter acts on the guide. Until every window asked for has answered, the
 * airing on now may be in one still on its way, so only an airing on now decides it early.
 */
function useOpeningKey(first: GuideRow | undefined, now: number, settled: boolean): [string | null, () => void] {
  const [key, setKey] = useState<string | null>(null);
  const decided = useRef(false);
  useEffect(() => {
    if (decided.current || !first) return;
    const onNow = first.airings.find((a) => a.start_time <= now && a.end_time > now);
    const current = onNow ?? (settled ? airingAt(first.airings, now) : undefined);
    if (!current) return;
    decided.current = true;
    setKey(cellKey(first.channel.number, current.start_time));
  }, [first, now, settled]);
  return [key, () => setKey(null)];
}

interface RowProps {
  row: GuideRow;
  /**
   * The row's place in the grid, and the focus key of the cell Up or Down goes to from a time in it (undefined: the
   * default, by geometry).
   */
  index: number;
  neighbour: (index: number, step: number, time: number) => string | undefined;
  /** The time at the grid's left edge. */
  visibleFrom: number;
  scale: Scale;
  sizes: GridSizes;
  from: number;
  to: number;
  now: number;
  onOpen: (opened: OpenedProgramme) => void;
  /** The focus key of the cell to focus when it mounts, and what to call then. */
  opening: string | null;
  onOpened: () => void;
}

function ChannelRow({
  row,
  index,
  neighbour,
  visibleFrom,
  scale,
  sizes,
  from,
  to,
  now,
  onOpen,
  opening,
  onOpened,
}: RowProps) {
  const mode = useMode();
  const { channel } = row;
  const shown = airingsIn(row.airings, from, to);
  return (
    <>
      <FocusLink
        to="/{-$mode}/watch/channel/$number"
        params={{ mode, number: channel.number }}
        className="guide-label"
        title={`Watch channel ${channel.number}`}
      >
        <span className="guide-sr">Watch channel </span>
        <span className="guide-number">{channel.number}</span>
        {channel.image_url ? <img src={channel.image_url} alt="" loading="lazy" /> : null}
        <span className="guide-name">{channel.name}</span>
      </FocusLink>
      <div className="guide-cells" style={{ left: sizes.label }}>
        {shown.map((airing) => (
          <ProgrammeCell
            key={airing.start_time}
            row={row}
            airing={airing}
            scale={scale}
            now={now}
            onOpen={onOpen}
            upOrDown={(step) => neighbour(index, step, Math.max(airing.start_time, visibleFrom))}
            focusNow={opening === cellKey(row.channel.number, airing.start_time)}
            onFocused={onOpened}
          />
        ))}
        {row.airings.length === 0 && (
          <span
            className="guide-cell guide-empty"
            style={{ left: Math.max(0, xOf(from, scale)), width: xOf(to, scale) - Math.max(0, xOf(from, scale)) }}
          >
            <span className="guide-empty-text">No guide for these hours</span>
          </span>
        )}
      </div>
    </>
  );
}

type CellProps = Pick<RowProps, 'row' | 'scale' | 'now' | 'onOpen'> & {
  airing: GuideAiring;
  /** The focus key Up (-1) or Down (+1) goes to. */
  upOrDown: (step: number) => string | undefined;
  focusNow: boolean;
  onFocused: () => void;
};

function ProgrammeCell({ row, airing, scale, now, onOpen, upOrDown, focusNow, onFocused }: CellProps) {
  const open = () => onOpen({ row, airing });
  const { ref, focusKey } = useFocusable<object, HTMLButtonElement>({
    focusKey: cellKey(row.channel.number, airing.start_time),
    onEnterPress: open,
    // By geometry alone, Down from a programme at the grid's left edge would land on the
    // next channel's name (its corner touches the programme's): go by time instead. The
    // first and last rows, and rows not loaded yet, leave it to the default (the toolbar above).
    onArrowPress: (direction) => {
      if (direction !== 'up' && direction !== 'down') return true;
      const target = upOrDown(direction === 'up' ? -1 : 1);
      if (!target || !doesFocusableExist(target)) return true;
      setFocus(target);
      return false;
    },
    onFocus: () => ref.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' }),
  });
  useEffect(() => {
    if (!focusNow) return;
    setFocus(focusKey);
    onFocused();
  }, [focusNow, focusKey, onFocused]);
  const box = boxOf(airing, scale);
  const placeholder = isPlaceholder(airing);
  // A placeholder hour's title is its channel's name: say plainly it is not a programme.
  const detail = placeholder ? 'No guide data' : [episodeCode(airing), airing.episode_title].filter(Boolean).join(' ');
  const state = airing.recording ? 'Recording now' : airing.job_id ? 'Will record' : '';
  const classes = [
    'guide-cell',
    airing.end_time <= now ? 'past' : '',
    airing.start_time <= now && airing.end_time > now ? 'on-now' : '',
    placeholder ? 'placeholder' : '',
    airing.job_id ? 'has-job' : '',
    airing.recording ? 'recording' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <button type="button" ref={ref} className={classes} style={{ left: box.left, width: box.width }} onClick={open}>
      <span className="guide-title">
        {airing.job_id && <span className="guide-dot" aria-hidden="true" />}
        {airing.title}
      </span>
      <span className="guide-detail">
        {clockOf(airing.start_time)} {detail}
      </span>
      {/* What the box's place on the grid says to the eye, said to a screen reader. */}
      <span className="guide-sr">{`, channel ${row.channel.number}, until ${clockOf(airing.end_time)}${state ? `, ${state}` : ''}`}</span>
    </button>
  );
}
