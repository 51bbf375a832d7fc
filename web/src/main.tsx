/** The Antenna app's entry: spatial navigation, the query cache and the router. */
import { init as initSpatialNavigation } from '@noriginmedia/norigin-spatial-navigation';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/http-client';
import { driven, installBridge } from './player-bridge/bridge';
import { PlayerNotice } from './player-bridge/player-notice';
import { followServerEvents } from './api/event-feed';
import { router } from './routes';
import './styles.css';

// The browser's focus follows the remote's, so Enter, the focus ring and screen readers work as usual.
initSpatialNavigation({ shouldFocusDOMNode: true, throttle: 0 });

// Inside a form field, arrows move its caret or value and Enter submits its form, as
// usual: spatial navigation (which would take those keys and prevent their default)
// does not see them. Up and Down leave a one-line text field, so a remote is not stuck.
window.addEventListener(
  'keydown',
  (event) => {
    const target = event.target;
    const text =
      target instanceof HTMLInputElement && !['checkbox', 'radio', 'range', 'button', 'submit'].includes(target.type);
    const field =
      text ||
      target instanceof HTMLSelectElement ||
      target instanceof HTMLTextAreaElement ||
      (target instanceof HTMLInputElement && target.type === 'range');
    if (!field) return;
    const leaves = text && (event.key === 'ArrowUp' || event.key === 'ArrowDown');
    if ((event.key.startsWith('Arrow') && !leaves) || event.key === 'Enter') event.stopImmediatePropagation();
  },
  { capture: true },
);

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx will answer the same again; only a network failure or 5xx is worth retrying.
      retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
  },
});

// On a player's screen (antenna player --backend browser): the player's control surface,
// and the player view loaded at once, so the first play command does not wait for it.
if (driven) {
  installBridge(router);
  void import('./sections/player/player-view');
}

// What the server tells (a failed recording, a conflict, a full disk) shows over whatever is on screen. Not on a
// player's screen: there the player's notify (interface B) owns the notification, and the server calls it.
if (!driven) followServerEvents(queries);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <RouterProvider router={router} />
      <PlayerNotice />
    </QueryClientProvider>
  </StrictMode>,
);
