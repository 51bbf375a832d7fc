/**
 * Commercial auto-skip for a backend that does not do it itself (mpv): while an item with
 * marks plays, looks at the position twice a second (the backend's mirror, no I/O) and
 * follows the shared rules (commercial-skip.ts). Auto seeks past the break and says
 * "Skipped 2:30" with how to undo it (skip_backward goes back to the break's start, which
 * is then watched); Ask shows the break and how to skip it (skip_forward goes to its end).
 * The seeks run in the player's command queue, so they never interleave with a command.
 * A recording still being made (or processed) gets its marks again every minute, so
 * breaks found while it records reach a player already playing it.
 */
import type { Logger } from 'pino';
import type { CommercialSkipMode } from '../model/players/commercial-skip-modes.js';
import type { ServerItem } from './antenna-server.client.js';
import {
  type SkipAction,
  type SkipState,
  type Span,
  breakSpans,
  marksMayChange,
  onPosition,
  spanLength,
  startSkipState,
} from './commercial-skip.js';
import type { PlayerBackend } from './player-backend.js';

export interface CommercialWatchOptions {
  backend: PlayerBackend;
  logger: Logger;
  /** What this player does at a break now (its server says, at each heartbeat). */
  mode: () => CommercialSkipMode;
  /** Runs `action` in the player's command queue. */
  run: (what: string, action: () => Promise<void>) => void;
  /** The item again, for marks that change while it records. */
  fetchItem: (id: string) => Promise<ServerItem>;
  /** New marks for the item playing (skip_forward / skip_backward follow them). */
  marksChanged: (item: ServerItem) => void;
  pollMs?: number;
  refreshMs?: number;
  /** How long "Skipped" and "Skip ad" stay on screen. */
  messageMs?: number;
}

interface Watched {
  id: string;
  tag: number;
  spans: Span[];
  state: SkipState;
  /** Marks may still change: a recording being made or processed. */
  growing: boolean;
  refreshing: boolean;
  lastRefresh: number;
}

const POLL_MS = 500;
const REFRESH_MS = 60_000;
/** As long as the app offers Undo and Skip ad. */
const MESSAGE_MS = 8_000;

export class CommercialWatch {
  private watched: Watched | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The break just skipped, while its "Undo: skip_backward" is on screen. */
  private skipped: { start: number; until: number } | undefined;

  constructor(private readonly options: CommercialWatchOptions) {}

  /** An item began to play (from `start` seconds): watch it for breaks. */
  watch(item: ServerItem, tag: number, start: number): void {
    this.stop();
    const spans = breakSpans(item.commercials);
    const growing = marksMayChange(item);
    if (spans.length === 0 && !growing) return;
    this.watched = {
      id: item.id,
      tag,
      spans,
      state: startSkipState(start),
      growing,
      refreshing: false,
      lastRefresh: Date.now(),
    };
    this.timer = setInterval(() => this.tick(), this.options.pollMs ?? POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watched = undefined;
    this.skipped = undefined;
  }

  /** Where skip_backward goes while the message of an auto-skip is up (Undo): the break's start; once only. */
  undoTarget(): number | undefined {
    const skipped = this.skipped;
    this.skipped = undefined;
    return skipped && Date.now() < skipped.until ? skipped.start : undefined;
  }

  /** The player seeked (a command): a break it lands in is one chosen by hand, never skipped. */
  seeked(position: number): void {
    const watched = this.watched;
    if (!watched) return;
    watched.state = onPosition(watched.state, watched.spans, { position, seeked: true }, this.options.mode()).state;
  }

  private tick(): void {
    const watched = this.watched;
    if (!watched) return;
    const media = this.options.backend.state();
    if (!media.loaded || media.position === undefined) return;
    const step = ((this.options.pollMs ?? POLL_MS) / 1000) * 4 + 2;
    const seen = onPosition(watched.state, watched.spans, { position: media.position }, this.options.mode(), step);
    watched.state = seen.state;
    if (seen.action.kind !== 'none') this.act(watched, seen.action);
    if (
      watched.growing &&
      !watched.refreshing &&
      Date.now() - watched.lastRefresh >= (this.options.refreshMs ?? REFRESH_MS)
    )
      this.refresh(watched);
  }

  private act(watched: Watched, action: Exclude<SkipAction, { kind: 'none' }>): void {
    const [, end] = action.span;
    const length = spanLength(action.span);
    const messageMs = this.options.messageMs ?? MESSAGE_MS;
    this.options.run('commercial skip', async () => {
      if (this.watched !== watched) return;
      const { backend } = this.options;
      if (action.kind === 'ask') {
        await backend.showMessage(`Commercial break · ${length}`, 'Skip ad: skip_forward', messageMs);
        return;
      }
      this.seeked(end);
      await backend.seekTo(end);
      this.seeked(end);
      this.skipped = { start: action.span[0], until: Date.now() + messageMs };
      await backend.showMessage(`Skipped ${length}`, 'Undo: skip_backward', messageMs);
      this.options.logger.debug({ item: watched.id, break: action.span }, 'commercial break skipped');
    });
  }

  private refresh(watched: Watched): void {
    watched.refreshing = true;
    this.options
      .fetchItem(watched.id)
      .then(
        (item) => {
          if (this.watched !== watched) return;
          watched.spans = breakSpans(item.commercials);
          watched.growing = marksMayChange(item);
          this.options.marksChanged(item);
        },
        (error: unknown) =>
          this.options.logger.debug({ err: error, item: watched.id }, 'could not read the marks again; next minute'),
      )
      .finally(() => {
        watched.refreshing = false;
        watched.lastRefresh = Date.now();
      });
  }
}
