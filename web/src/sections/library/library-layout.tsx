/**
 * The library's own navigation (Recordings, TV Shows, Movies, Videos, Collections, Playlists) above the list it shows.
 */
import { Outlet } from '@tanstack/react-router';
import { FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';

const LISTS = [
  { to: '/{-$mode}/library/recordings', label: 'Recordings' },
  { to: '/{-$mode}/library/shows', label: 'TV Shows' },
  { to: '/{-$mode}/library/movies', label: 'Movies' },
  { to: '/{-$mode}/library/videos', label: 'Videos' },
  { to: '/{-$mode}/library/collections', label: 'Collections' },
  { to: '/{-$mode}/library/playlists', label: 'Playlists' },
] as const;

export function LibraryLayout() {
  const mode = useMode();
  return (
    <section className="library" aria-label="Library">
      <FocusGroup as="nav" className="subnav" aria-label="Library lists">
        {LISTS.map((list) => (
          <FocusLink
            key={list.to}
            to={list.to}
            params={{ mode }}
            className="tab"
            activeProps={{ className: 'tab active', 'aria-current': 'page' }}
          >
            {list.label}
          </FocusLink>
        ))}
      </FocusGroup>
      <Outlet />
    </section>
  );
}
