/**
 * The server's events in the app, shown as notifications over whatever is on screen, so
 * a failed recording, a conflict or a full disk is never silent; a recording's start or
 * end also refreshes what the app shows. Read from GET /dvr/events/recent every 5 s (the
 * events after the newest one seen), not from the SSE stream: a page that always holds a
 * connection open never looks finished loading to tools that wait for the network to go
 * quiet (the tests' Chromium, prerenderers), and 5 s is soon enough for a notification.
 */
import type { QueryClient } from '@tanstack/react-query';
import { showNotice } from '../player-bridge/notice-store';
import { api } from './http-client';
import type { ServerEvent } from './server-types';
import { EVENT_KIND_TITLES } from '../lib/event-kinds';

/** Always shown: what went wrong, and a recording's start and end (pure). */
export function isShown(event: Pick<ServerEvent, 'kind' | 'severity'>): boolean {
  return event.severity !== 'info' || event.kind === 'recording.started' || event.kind === 'recording.completed';
}

/** The notification for an event, and how long it stays: errors longest (pure). */
export function noticeOf(event: Pick<ServerEvent, 'kind' | 'severity' | 'message'>): {
  title: string;
  message: string;
  ms: number;
} {
  return {
    title: (EVENT_KIND_TITLES as Record<string, string>)[event.kind] ?? event.kind,
    message: event.message,
    ms: event.severity === 'error' ? 15_000 : event.severity === 'warning' ? 10_000 : 5_000,
  };
}

/** The events of a poll not seen yet, oldest first (pure): `after` undefined is the first poll, which shows none. */
export function newEvents(recent: readonly ServerEvent[], after: number | undefined): ServerEvent[] {
  if (after === undefined) return [];
  return recent.filter((event) => event.id > after).sort((a, b) => a.id - b.id);
}

const POLL_MS = 5_000;

/** Follows the server's events while the page is open; the returned function stops. */
export function followServerEvents(queries: QueryClient): () => void {
  let after: number | undefined;
  let polling = false;
  const poll = async () => {
    // A slow answer is not asked for twice: its notifications would show twice.
    if (polling) return;
    polling = true;
    try {
      const recent = await api<ServerEvent[]>('/dvr/events/recent?limit=100');
      const fresh = newEvents(recent, after);
      if (fresh.some((event) => event.kind.startsWith('recording.'))) void queries.invalidateQueries();
      for (const event of fresh) {
        if (!isShown(event)) continue;
        const notice = noticeOf(event);
        showNotice({ title: notice.title, message: notice.message }, notice.ms);
      }
      after = Math.max(after ?? 0, ...recent.map((event) => event.id));
    } catch {
      // The server away for a moment: the next poll catches up.
    } finally {
      polling = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), POLL_MS);
  return () => clearInterval(timer);
}
