/**
 * A list of cards of any length: only the rows in view (and a few around them) are in
 * the page (TanStack Virtual), so 50,000 recordings scroll as smoothly as 50. The grid
 * scrolls with the window, so the header and the browser's own scrolling stay as usual.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState } from 'react';
import { type CardData, cardRowHeight, columnsFor } from '../lib/cards';
import { FocusGroup, FocusLink } from './focusable';
import { useMode } from './mode';

const GAP = 16;

/** The root font size (TV mode's is larger), which the cards' text lines are measured in. */
function rootFontSize(_mode: unknown): number {
  return Number.parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
}

export function CardGrid({ cards, label }: { cards: readonly CardData[]; label: string }) {
  const mode = useMode();
  const container = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(1024);
  const [offset, setOffset] = useState(0);
  const minWidth = mode === 'tv' ? 260 : 180;
  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    const measure = () => {
      setWidth(element.clientWidth);
      setOffset(element.getBoundingClientRect().top + window.scrollY);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const columns = columnsFor(width, minWidth, GAP);
  const cardWidth = (width - GAP * (columns - 1)) / columns;
  // One shape per grid, so every row has the height the virtualizer reckons with (a mixed list, such as
  // Recordings with movies among episodes, shows every card wide).
  const shape = cards.some((card) => card.shape === 'wide') ? 'wide' : 'poster';
  const wide = shape === 'wide';
  // Poster 2:3 or thumbnail 16:9, plus two lines of text.
  // Exact, not measured (measuring every row as it scrolls in costs frames): the art's aspect ratio
  // plus the card's fixed text lines and padding (styles.css, .card-link).
  const rowHeight = cardRowHeight(cardWidth, wide ? 9 / 16 : 3 / 2, rootFontSize(mode), GAP);
  const rows = Math.ceil(cards.length / columns);
  const virtualizer = useWindowVirtualizer({
    count: rows,
    estimateSize: () => rowHeight,
    overscan: 3,
    scrollMargin: offset,
  });
  return (
    <FocusGroup>
      <div
        ref={container}
        className="card-grid"
        role="list"
        aria-label={label}
        style={{ height: virtualizer.getTotalSize() }}
      >
        {virtualizer.getVirtualItems().map((row) => (
          <CardRow
            key={`${row.key}-${columns}`}
            cards={cards}
            first={row.index * columns}
            columns={columns}
            top={row.start - virtualizer.options.scrollMargin}
            shape={shape}
          />
        ))}
      </div>
    </FocusGroup>
  );
}

/**
 * One row, rendered again only when it moves or its cards change: the virtualizer
 * renders the grid on every scroll event, and a card (a router link, a focusable) is
 * not free to render 60 times a second.
 */
interface CardRowProps {
  cards: readonly CardData[];
  first: number;
  columns: number;
  top: number;
  shape: CardData['shape'];
}

const CardRow = memo(function CardRow({ cards, first, columns, top, shape }: CardRowProps) {
  return (
    <div
      className="card-row"
      style={{ transform: `translateY(${top}px)`, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`, gap: GAP }}
    >
      {cards.slice(first, first + columns).map((card) => (
        <Card key={card.key} card={card} shape={shape} />
      ))}
    </div>
  );
});

export const Card = memo(function Card({ card, shape = card.shape }: { card: CardData; shape?: CardData['shape'] }) {
  const mode = useMode();
  return (
    <div role="listitem" className={`card card-${shape}`}>
      <FocusLink {...card.target} params={{ ...card.target.params, mode }} className="card-link">
        <div className="card-art">
          {card.image ? (
            <img src={card.image} alt="" loading="lazy" decoding="async" />
          ) : (
            <span className="card-initial" aria-hidden="true">
              {card.title.slice(0, 1)}
            </span>
          )}
          {card.badges.length > 0 && (
            <span className="card-badges">
              {card.badges.map((badge) => (
                <span key={badge} className={`badge badge-${badge.toLowerCase()}`}>
                  {badge}
                </span>
              ))}
            </span>
          )}
          {card.progress > 0 && card.progress < 1 && (
            <span className="card-progress" aria-label={`${Math.round(card.progress * 100)}% watched`}>
              <span style={{ width: `${card.progress * 100}%` }} />
            </span>
          )}
        </div>
        <span className="card-title">{card.title}</span>
        <span className="card-subtitle">{card.subtitle}</span>
      </FocusLink>
    </div>
  );
});
