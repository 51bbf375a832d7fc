/**
 * The app's URLs. Every section sits under an optional `tv` prefix: `/library/movies`
 * is the usual layout, `/tv/library/movies` the same page laid out for a television.
 * The server sends the page for the first segment of each (src/api/web-app.routes.ts,
 * APP_SECTIONS): a section added here is added there too.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  notFound,
  redirect,
} from '@tanstack/react-router';
import { AppShell, NotFoundPage } from './app-shell';
import { ErrorNotice } from './components/error-notice';
import { LibraryLayout } from './sections/library/library-layout';
import {
  CollectionPage,
  CollectionsPage,
  MoviesPage,
  PlaylistPage,
  PlaylistsPage,
  RecordingsPage,
  ShowPage,
  ShowsPage,
  VideoGroupPage,
  VideoGroupsPage,
} from './sections/library/library-lists';
import { ItemDetailPage } from './sections/library/item-detail';
import { ScheduleLayout } from './sections/schedule/schedule-layout';
import { UpcomingPage } from './sections/schedule/upcoming-page';
import { PassesPage } from './sections/schedule/passes-page';
import { EditPassPage, NewPassPage } from './sections/schedule/pass-form';
import { RecordingNowPage } from './sections/schedule/recording-now-page';
import { passSearch } from './sections/schedule/rule-form';
import { SettingsPage } from './sections/settings/settings-page';
import { SettingsLayout } from './sections/settings/settings-layout';
import { LineupPage } from './sections/settings/lineup-page';
import { GuidePage } from './sections/guide/guide-page';
import { LivePage } from './sections/live/live-page';
import { SearchPage } from './sections/search/search-page';
import { searchParam } from './sections/search/search-view';
import { searchNumber } from './lib/search-values';

// The player (and hls.js, most of its weight) loads when something is first played, not with the app.
const PlayerView = lazyRouteComponent(() => import('./sections/player/player-view'), 'PlayerView');

const rootRoute = createRootRoute({ notFoundComponent: NotFoundPage });

const modeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '{-$mode}',
  beforeLoad: ({ params }) => {
    if (params.mode !== undefined && params.mode !== 'tv') throw notFound();
  },
  component: AppShell,
});

const homeRoute = createRoute({
  getParentRoute: () => modeRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/{-$mode}/library/recordings', params: { mode: params.mode } });
  },
});

const libraryRoute = createRoute({ getParentRoute: () => modeRoute, path: 'library', component: LibraryLayout });
const libraryIndex = createRoute({
  getParentRoute: () => libraryRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/{-$mode}/library/recordings', params: { mode: params.mode } });
  },
});
const page = <P extends string>(path: P, component: () => React.ReactNode) =>
  createRoute({ getParentRoute: () => libraryRoute, path, component });
const recordingsRoute = page('recordings', RecordingsPage);
const showsRoute = page('shows', ShowsPage);
const moviesRoute = page('movies', MoviesPage);
const videosRoute = page('videos', VideoGroupsPage);
const collectionsRoute = page('collections', CollectionsPage);
const playlistsRoute = page('playlists', PlaylistsPage);
const showRoute = createRoute({
  getParentRoute: () => libraryRoute,
  path: 'shows/$id',
  component: () => <ShowPage id={showRoute.useParams().id} />,
});
const groupRoute = createRoute({
  getParentRoute: () => libraryRoute,
  path: 'videos/$id',
  component: () => <VideoGroupPage id={groupRoute.useParams().id} />,
});
const collectionRoute = createRoute({
  getParentRoute: () => libraryRoute,
  path: 'collections/$id',
  component: () => <CollectionPage id={collectionRoute.useParams().id} />,
});
const playlistRoute = createRoute({
  getParentRoute: () => libraryRoute,
  path: 'playlists/$id',
  component: () => <PlaylistPage id={playlistRoute.useParams().id} />,
});
const itemRoute = createRoute({
  getParentRoute: () => libraryRoute,
  path: 'items/$id',
  component: () => <ItemDetailPage id={itemRoute.useParams().id} />,
});

/** `?t=`: the number a player gave the command that opened the player view (player-bridge). */
export function ticketParam(search: Record<string, unknown>): { t?: number } {
  const ticket = searchNumber(search.t);
  return Number.isSafeInteger(ticket) && ticket > 0 ? { t: ticket } : {};
}

/** `?start=` seconds: where to begin (a resume point); anything else is the start. */
export function startParam(search: Record<string, unknown>): { start: number; t?: number } {
  const start = searchNumber(search.start);
  return { start: Number.isFinite(start) && start > 0 ? start : 0, ...ticketParam(search) };
}

const guideRoute = createRoute({ getParentRoute: () => modeRoute, path: 'guide', component: GuidePage });
const liveRoute = createRoute({ getParentRoute: () => modeRoute, path: 'live', component: LivePage });
// `?q=`: the search, in the address so it can be bookmarked and Back returns to it.
const searchRoute = createRoute({
  getParentRoute: () => modeRoute,
  path: 'search',
  validateSearch: searchParam,
  component: SearchPage,
});

// The DVR section is /schedule: /dvr is the server's own API.
const scheduleRoute = createRoute({ getParentRoute: () => modeRoute, path: 'schedule', component: ScheduleLayout });
const scheduleIndex = createRoute({
  getParentRoute: () => scheduleRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/{-$mode}/schedule/upcoming', params: { mode: params.mode } });
  },
});
const upcomingRoute = createRoute({ getParentRoute: () => scheduleRoute, path: 'upcoming', component: UpcomingPage });
const passesRoute = createRoute({ getParentRoute: () => scheduleRoute, path: 'passes', component: PassesPage });
const newPassRoute = createRoute({
  getParentRoute: () => scheduleRoute,
  path: 'passes/new',
  validateSearch: passSearch,
  component: () => {
    const search = newPassRoute.useSearch();
    return <NewPassPage key={JSON.stringify(search)} search={search} />;
  },
});
const editPassRoute = createRoute({
  getParentRoute: () => scheduleRoute,
  path: 'passes/$id',
  component: () => <EditPassPage id={editPassRoute.useParams().id} />,
});
const recordingNowRoute = createRoute({
  getParentRoute: () => scheduleRoute,
  path: 'recording',
  component: RecordingNowPage,
});
const settingsRoute = createRoute({ getParentRoute: () => modeRoute, path: 'settings', component: SettingsLayout });
const settingsIndex = createRoute({ getParentRoute: () => settingsRoute, path: '/', component: SettingsPage });
const channelsRoute = createRoute({ getParentRoute: () => settingsRoute, path: 'channels', component: LineupPage });

const watchRoute = createRoute({
  getParentRoute: () => modeRoute,
  path: 'watch/$id',
  validateSearch: startParam,
  component: () => {
    const { id } = watchRoute.useParams();
    const { start, t } = watchRoute.useSearch();
    return <PlayerView key={`${id}:${start}:${t ?? ''}`} source={{ kind: 'file', id, start, ticket: t }} />;
  },
});

const watchChannelRoute = createRoute({
  getParentRoute: () => modeRoute,
  path: 'watch/channel/$number',
  validateSearch: ticketParam,
  component: () => {
    const { number } = watchChannelRoute.useParams();
    const { t } = watchChannelRoute.useSearch();
    return <PlayerView key={`${number}:${t ?? ''}`} source={{ kind: 'channel', number, ticket: t }} />;
  },
});

export const routeTree = rootRoute.addChildren([
  modeRoute.addChildren([
    homeRoute,
    libraryRoute.addChildren([
      libraryIndex,
      recordingsRoute,
      showsRoute,
      showRoute,
      moviesRoute,
      videosRoute,
      groupRoute,
      collectionsRoute,
      collectionRoute,
      playlistsRoute,
      playlistRoute,
      itemRoute,
    ]),
    guideRoute,
    liveRoute,
    searchRoute,
    scheduleRoute.addChildren([
      scheduleIndex,
      upcomingRoute,
      passesRoute,
      newPassRoute,
      editPassRoute,
      recordingNowRoute,
    ]),
    settingsRoute.addChildren([settingsIndex, channelsRoute]),
    watchRoute,
    watchChannelRoute,
  ]),
]);

export const router = createRouter({
  routeTree,
  defaultPreload: 'intent',
  scrollRestoration: true,
  // A page that fails to render says why, with a way to try again, never a blank screen.
  defaultErrorComponent: ({ error, reset }) => <ErrorNotice error={error} retry={reset} />,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
