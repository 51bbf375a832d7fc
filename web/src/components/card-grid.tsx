/**
 * A list of cards of any length: only the rows in view (and a few around them) are in
 * the page (TanStack Virtual), so 50,000 recordings scroll as smoothly as 50. The grid
 * scrolls with the window, so the header and the browser's own scrolling stay as usual.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState } from 'react';
import { type CardData, columnsFor } from '../lib/cards';
import { FocusGroup, FocusLink } from './focusable';
import { useMode } from './mode';

const GAP = 16;

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
  const wide = cards.some((card) => card.shape === 'wide');
  // Poster 2:3 or thumbnail 16:9, plus two lines of text.
  const rowHeight = Math.round(cardWidth * (wide ? 9 / 16 : 3 / 2)) + (mode === 'tv' ? 84 : 64) + GAP;
  const rows = Math.ceil(cards.length / columns);
  const virtualizer = useWindowVirtualizer({ count: rows, estimateSize: () => rowHeight, overscan: 3, scrollMargin: offset });
  return (
    <FocusGroup>
      <div ref={container} className="card-grid" role="list" aria-label={label} style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={`${row.key}-${columns}`}
            className="card-row"
            style={{ transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`, gridTemplateColumns: `repeat(${columns}, 1fr)`, gap: GAP }}
          >
            {cards.slice(row.index * columns, row.index * columns + columns).map((card) => (
              <Card key={card.key} card={card} />
            ))}
          </div>
        ))}
      </div>
    </FocusGroup>
  );
}

export function Card({ card }: { card: CardData }) {
  const mode = useMode();
  return (
    <div role="listitem" className={`card card-${card.shape}`}>
      <FocusLink {...card.target} params={{ ...card.target.params, mode }} className="card-link">
        <div className="card-art">
          {card.image ? <img src={card.image} alt="" loading="lazy" decoding="async" /> : <span className="card-initial" aria-hidden="true">{card.title.slice(0, 1)}</span>}
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
}
