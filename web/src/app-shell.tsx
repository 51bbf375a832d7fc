/**
 * The frame around every section: the header with the sections, the page, and the
 * token prompt that a refused change opens. In TV mode (`/tv/...`) the same frame is
 * laid out for a television: larger type, a focus ring, and arrows, Enter and Back
 * reach everything.
 */
import {
  FocusContext,
  doesFocusableExist,
  getCurrentFocusKey,
  setFocus,
  useFocusable,
} from '@noriginmedia/norigin-spatial-navigation';
import { Outlet, useRouter, useRouterState } from '@tanstack/react-router';
import { useEffect } from 'react';
import { FocusGroup, FocusLink } from './components/focusable';
import { useMode } from './components/mode';
import { TokenPrompt } from './components/token-prompt';

/** The app's sections, in the header's order. */
export const SECTIONS = [
  { to: '/{-$mode}/library', label: 'Library', match: '/library' },
  { to: '/{-$mode}/guide', label: 'Guide', match: '/guide' },
  { to: '/{-$mode}/live', label: 'Live TV', match: '/live' },
  { to: '/{-$mode}/search', label: 'Search', match: '/search' },
  { to: '/{-$mode}/schedule', label: 'DVR', match: '/schedule' },
  { to: '/{-$mode}/settings', label: 'Settings', match: '/settings' },
] as const;

export function AppShell() {
  const mode = useMode();
  const router = useRouter();
  const path = useRouterState({ select: (state) => state.location.pathname });
  const watching = /\/watch\//.test(path);
  const { ref, focusKey } = useFocusable<object, HTMLDivElement>({ focusKey: 'APP', trackChildren: true });
  useEffect(() => {
    document.documentElement.classList.toggle('tv', mode === 'tv');
  }, [mode]);
  // On a TV something always has focus, so the first arrow or Enter of a remote does something
  // (a page may have focused its own first choice already: Play on an item's page). With a
  // mouse, a focus ring on the first tab would only mislead: there the first arrow key sets it.
  useEffect(() => {
    const lost = () => {
      const current = getCurrentFocusKey();
      return !current || !doesFocusableExist(current) || current === focusKey;
    };
    if (mode === 'tv') {
      if (lost()) void setFocus(focusKey);
      return;
    }
    const onArrow = (event: KeyboardEvent) => {
      if (!event.key.startsWith('Arrow') || !lost()) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      void setFocus(focusKey);
    };
    window.addEventListener('keydown', onArrow, { capture: true });
    return () => window.removeEventListener('keydown', onArrow, { capture: true });
  }, [focusKey, path, mode]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const typing =
        event.target instanceof HTMLInputElement ||
        event.target instanceof HTMLTextAreaElement ||
        event.target instanceof HTMLSelectElement;
      if (watching || typing) return;
      // A remote's Back (and Backspace on a keyboard) goes back, as the TV's own apps do.
      if (event.key === 'GoBack' || event.key === 'BrowserBack' || (event.key === 'Backspace' && mode === 'tv')) {
        event.preventDefault();
        router.history.back();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [router, watching, mode]);
  return (
    <FocusContext.Provider value={focusKey}>
      <div ref={ref} className={`shell${watching ? ' shell-watching' : ''}`}>
        {!watching && (
          <header className="topbar">
            <span className="brand" aria-hidden="true">
              Antenna
            </span>
            <FocusGroup as="nav" aria-label="Sections">
              {SECTIONS.map((section) => (
                <FocusLink
                  key={section.to}
                  to={section.to}
                  params={{ mode }}
                  className="nav-link"
                  activeProps={{ className: 'nav-link active', 'aria-current': 'page' }}
                >
                  {section.label}
                </FocusLink>
              ))}
            </FocusGroup>
          </header>
        )}
        <main className={watching ? 'main-watching' : 'main'}>
          <Outlet />
        </main>
        <TokenPrompt />
      </div>
    </FocusContext.Provider>
  );
}

export function NotFoundPage() {
  return (
    <main className="main">
      <h1>Not found</h1>
      <p>There is no page at this address. Choose a section above, or go to the library.</p>
      <FocusLink to="/{-$mode}/library/recordings" params={{ mode: undefined }} className="button primary">
        Open the library
      </FocusLink>
    </main>
  );
}
