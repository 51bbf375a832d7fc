/**
 * Search: one field, and what matches every word typed in it, grouped (TV shows,
 * movies, video groups, videos, episodes as cards; programmes from the guide as rows
 * to watch, if on now, or record). The query lives in the address (`?q=`), written a
 * moment after typing pauses, so a search can be bookmarked and Back returns to it.
 * On a TV the field is reached with the arrows; Down leaves it for the results, and
 * Enter searches at once (and, pressed again, goes down to the results).
 */
import {
  getCurrentFocusKey,
  navigateByDirection,
  setFocus,
  useFocusable,
} from '@noriginmedia/norigin-spatial-navigation';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { searchQueries } from '../../api/search.queries';
import { Card } from '../../components/card-grid';
import { Empty, ErrorNotice, Loading } from '../../components/error-notice';
import { FocusGroup } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { useRecordingNow } from '../library/library-lists';
import { AiringList } from './airing-list';
import { MAX_QUERY_LENGTH, SEARCH_DEBOUNCE_MS, foundNothing, resultGroups, searchParam } from './search-view';
import './search.css';

export function SearchPage() {
  const mode = useMode();
  const navigate = useNavigate();
  const q = searchParam(useSearch({ strict: false }) as Record<string, unknown>).q ?? '';
  const [text, setText] = useState(q);
  // The address changes from outside too (Back, a bookmark): the field follows it.
  const written = useRef(q);
  useEffect(() => {
    if (q !== written.current) {
      written.current = q;
      setText(q);
    }
  }, [q]);
  const commit = (value: string) => {
    const next = value.trim() ? value : '';
    if (next === written.current) return;
    written.current = next;
    // Replaced, not pushed: Back leaves the search rather than stepping through every pause in typing.
    void navigate({ to: '/{-$mode}/search', params: { mode }, search: next ? { q: next } : {}, replace: true });
  };
  useEffect(() => {
    const timer = setTimeout(() => commit(text), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // Re-armed by each change of the text alone: that is the debounce.
  }, [text]);
  return (
    <section className="search" aria-label="Search">
      <form
        role="search"
        className="search-form"
        onSubmit={(event) => {
          event.preventDefault();
          // Enter searches now; pressed again on the same words, it goes down to the results.
          if (text.trim() && text === written.current) navigateByDirection('down', {});
          commit(text);
        }}
      >
        <label htmlFor="search-field" className="search-label">
          Search
        </label>
        <SearchField value={text} onChange={setText} />
      </form>
      <SearchResultsView q={q} />
    </section>
  );
}

/** The field, reachable by a remote; Enter in it submits the form (main.tsx leaves Enter to fields). */
function SearchField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { ref, focusKey } = useFocusable<object, HTMLInputElement>({ focusKey: 'SEARCH_FIELD' });
  // A search page is for typing: the field has focus when it opens (on a TV, the remote's too).
  // After this render's effects: on a first load the shell registers (and focuses) itself after its children.
  useEffect(() => {
    const timer = setTimeout(() => setFocus(focusKey), 0);
    return () => clearTimeout(timer);
  }, [focusKey]);
  return (
    <input
      ref={ref}
      id="search-field"
      className="search-field"
      type="search"
      value={value}
      maxLength={MAX_QUERY_LENGTH}
      placeholder="Shows, movies, videos, episodes, programmes"
      autoComplete="off"
      spellCheck={false}
      enterKeyHint="search"
      onChange={(event) => onChange(event.target.value)}
      // A click puts the remote's focus here too, so Enter is the field's and not what was focused before.
      onFocus={() => {
        if (getCurrentFocusKey() !== focusKey) setFocus(focusKey);
      }}
    />
  );
}

function SearchResultsView({ q }: { q: string }) {
  const query = useQuery({ ...searchQueries.search(q), enabled: q !== '' });
  const recordingNow = useRecordingNow();
  if (q === '')
    return (
      <Empty>
        Type the name of a show, movie, video, episode or TV programme. Every word you type must appear in it.
      </Empty>
    );
  if (query.isPending) return <Loading what="results" />;
  if (query.isError) return <ErrorNotice error={query.error} retry={() => void query.refetch()} />;
  const results = query.data;
  if (foundNothing(results)) return <Empty>{`Nothing matches “${q}”. Check the spelling, or use fewer words.`}</Empty>;
  return (
    <div className={`search-results${query.isPlaceholderData ? ' search-stale' : ''}`} aria-busy={query.isFetching}>
      {resultGroups(results, recordingNow).map((group) => (
        <section key={group.key} className="search-group" aria-labelledby={`search-${group.key}`}>
          <h2 id={`search-${group.key}`}>
            {group.title} <span className="search-count">{group.cards.length}</span>
          </h2>
          <FocusGroup
            className={`search-cards${group.cards[0]?.shape === 'wide' ? ' search-cards-wide' : ''}`}
            role="list"
            aria-label={group.title}
          >
            {group.cards.map((card) => (
              <Card key={card.key} card={card} />
            ))}
          </FocusGroup>
        </section>
      ))}
      {results.programmes.length > 0 && (
        <section className="search-group" aria-labelledby="search-programmes">
          <h2 id="search-programmes">
            On TV <span className="search-count">{results.programmes.length}</span>
          </h2>
          <AiringList programmes={results.programmes} />
        </section>
      )}
    </div>
  );
}
