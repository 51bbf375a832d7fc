/**
 * The lineup as a list of any length: only the rows in view (and a few around them) are
 * in the page (TanStack Virtual, scrolling with the window), each of one fixed height,
 * so 1,000 channels scroll as smoothly as 10 and a remote's Down reveals the next row.
 * A row: the number and the name, each edited in place; where the user changed the
 * number, name or group, what the source offers there and Reset; the favorite star and
 * Hide or Show. A channel whose number or visibility changed moves or leaves the list:
 * the list follows it (`follow`), so the focus stays with it, not lost with its old row.
 */
import { doesFocusableExist, setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { LineupChannel, LineupEdit } from '../../api/server-types';
import { FocusButton } from '../../components/focusable';
import { InlineEdit } from '../../components/inline-edit';
import { useMode } from '../../components/mode';
import { channelLabel, type ResettableField, sourceValues } from './lineup-view';

export type EditableField = ResettableField | 'hidden' | 'favorite';

/** Saves a change to a channel: true when saved, false when refused (the page says why). */
export type SaveChange = (channel: LineupChannel, change: LineupEdit, field: EditableField) => Promise<boolean>;

export interface Follow {
  id: string;
  field: EditableField;
  /** Where the channel was in the list: the row that takes its place there gets the focus if it has left the list. */
  index: number;
}

/** The focus key of a channel's control for `field`. */
export const controlKey = (id: string, field: EditableField) =>
  `lineup-${id}-${field === 'hidden' || field === 'favorite' ? field : field === 'group' ? 'name' : field}`;

/** null gives a field back to the source. */
const RESET: Record<ResettableField, LineupEdit> = {
  number: { number: null },
  name: { name: null },
  group: { group: null },
};

/**
 * Rows are 4.5 root ems tall: exact, not measured (measuring rows as they scroll in costs frames); TV mode's larger
 * type scales them.
 */
const ROW_EMS = 4.5;
const rootFontSize = () => Number.parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;

interface ListProps {
  channels: readonly LineupChannel[];
  save: SaveChange;
  /** The field whose last save was refused, and the id of the message saying why. */
  problem: { id: string; field: EditableField; messageId: string } | undefined;
  follow: Follow | undefined;
  onFollowed: () => void;
}

export function LineupList({ channels, save, problem, follow, onFollowed }: ListProps) {
  const mode = useMode();
  const list = useRef<HTMLUListElement>(null);
  const [offset, setOffset] = useState(0);
  // Whatever is above the list (filters, a group's form, a message) may change its height: measured after every render,
  // set only on a change.
  useLayoutEffect(() => {
    const top = (list.current?.getBoundingClientRect().top ?? 0) + window.scrollY;
    if (Math.abs(top - offset) > 0.5) setOffset(top);
  });
  const rowHeight = Math.round(ROW_EMS * rootFontSize());
  const virtualizer = useWindowVirtualizer({
    count: channels.length,
    estimateSize: () => rowHeight,
    overscan: 8,
    scrollMargin: offset,
    getItemKey: (index) => channels[index]?.id ?? index,
  });
  useEffect(() => virtualizer.measure(), [virtualizer, rowHeight, mode]);
  useFollow(channels, follow, onFollowed, (index) => virtualizer.scrollToIndex(index, { align: 'auto' }));
  return (
    <ul ref={list} className="lineup-list" aria-label="Channels" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const channel = channels[item.index]!;
        return (
          <LineupRow
            key={item.key}
            channel={channel}
            top={item.start - virtualizer.options.scrollMargin}
            height={rowHeight}
            save={save}
            problemField={problem?.id === channel.id ? problem.field : undefined}
            problemId={problem?.messageId}
          />
        );
      })}
    </ul>
  );
}

/**
 * Scrolls to the followed channel (or the row now where it was) and focuses the same control there once its row is in
 * the page.
 */
function useFollow(
  channels: readonly LineupChannel[],
  follow: Follow | undefined,
  onDone: () => void,
  onScroll: (index: number) => void,
) {
  // The latest callbacks, so that a render (each scroll renders) does not start the attempt again.
  const callbacks = useRef({ onDone, onScroll });
  callbacks.current = { onDone, onScroll };
  useEffect(() => {
    const done = () => callbacks.current.onDone();
    const scrollTo = (index: number) => callbacks.current.onScroll(index);
    if (!follow) return;
    const found = channels.findIndex((channel) => channel.id === follow.id);
    const index = found >= 0 ? found : Math.min(follow.index, channels.length - 1);
    const target = channels[index];
    if (!target) return done();
    scrollTo(index);
    const key = controlKey(target.id, found >= 0 ? follow.field : follow.field === 'favorite' ? 'favorite' : 'hidden');
    // The row mounts, and registers with spatial navigation, a frame or two after the scroll.
    let frames = 0;
    let handle = requestAnimationFrame(function attempt() {
      if (doesFocusableExist(key)) {
        setFocus(key);
        return done();
      }
      if (++frames < 30) handle = requestAnimationFrame(attempt);
      else done();
    });
    return () => cancelAnimationFrame(handle);
  }, [channels, follow]);
}

interface RowProps {
  channel: LineupChannel;
  top: number;
  height: number;
  save: SaveChange;
  problemField: EditableField | undefined;
  problemId: string | undefined;
}

/**
 * One row, rendered again only when its channel, place or problem changes: the virtualizer renders the list on every
 * scroll event.
 */
const LineupRow = memo(function LineupRow({ channel, top, height, save, problemField, problemId }: RowProps) {
  const label = channelLabel(channel);
  const sources = sourceValues(channel);
  const sourceOf = (field: ResettableField) => sources.find((value) => value.field === field);
  const reset = (field: ResettableField) => {
    const value = sourceOf(field);
    return value ? (
      <span className="lineup-source">
        <span>
          {field === 'group' ? 'Source’s group' : 'Source'}: {value.source}
        </span>
        <FocusButton
          className="lineup-reset"
          aria-label={`Reset the ${field} of channel ${label} to the source’s: ${value.source}`}
          onClick={() => void save(channel, RESET[field], field)}
        >
          Reset
        </FocusButton>
      </span>
    ) : null;
  };
  return (
    // `top`, not a transform: spatial navigation measures places by offsetTop, which a transform leaves out (every row
    // would seem to be at the top).
    <li className={`lineup-row${channel.hidden ? ' lineup-hidden' : ''}`} style={{ height: height - 6, top }}>
      <div className="lineup-cell lineup-number">
        <InlineEdit
          value={channel.number}
          label={`Number of channel ${channel.name}`}
          focusKey={controlKey(channel.id, 'number')}
          inputMode="decimal"
          maxLength={12}
          errorId={problemField === 'number' ? problemId : undefined}
          onSave={(number) => save(channel, { number }, 'number')}
        />
        {reset('number')}
      </div>
      <div className="lineup-cell lineup-name">
        <InlineEdit
          value={channel.name}
          label={`Name of channel ${channel.number}`}
          focusKey={controlKey(channel.id, 'name')}
          maxLength={200}
          errorId={problemField === 'name' ? problemId : undefined}
          onSave={(name) => save(channel, { name }, 'name')}
        />
        {reset('name')}
      </div>
      <div className="lineup-cell lineup-group">
        <span className="lineup-group-name">{channel.group ?? 'No group'}</span>
        {reset('group') ??
          (channel.placeholder && !channel.hidden && <span className="lineup-source">No guide describes it</span>)}
      </div>
      <div className="lineup-flags">
        {channel.hidden && <span className="lineup-badge">Hidden</span>}
        <FocusButton
          focusKey={controlKey(channel.id, 'favorite')}
          className={channel.favorite ? 'lineup-star on' : 'lineup-star'}
          aria-pressed={channel.favorite}
          aria-label={`Favorite channel ${label}`}
          onClick={() => void save(channel, { favorite: !channel.favorite }, 'favorite')}
        >
          {channel.favorite ? '★' : '☆'}
        </FocusButton>
        <FocusButton
          focusKey={controlKey(channel.id, 'hidden')}
          className="lineup-toggle"
          aria-label={`${channel.hidden ? 'Show' : 'Hide'} channel ${label}`}
          onClick={() => void save(channel, { hidden: !channel.hidden }, 'hidden')}
        >
          {channel.hidden ? 'Show' : 'Hide'}
        </FocusButton>
      </div>
    </li>
  );
});
