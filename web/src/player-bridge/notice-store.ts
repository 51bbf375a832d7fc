/**
 * The notification a player shows over whatever is on screen (interface B's notify):
 * one at a time, gone after its time; the overlay component subscribes to it.
 */
export interface Notice {
  title: string;
  message: string;
}

let notice: Notice | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

const changed = () => listeners.forEach((listener) => listener());

export function currentNotice(): Notice | undefined {
  return notice;
}

export function subscribeNotice(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Shows `shown` for `durationMs` (a new one replaces it); `gone` is called when it goes. */
export function showNotice(shown: Notice, durationMs: number, gone?: () => void): void {
  clearTimeout(timer);
  notice = shown;
  changed();
  timer = setTimeout(() => {
    notice = undefined;
    changed();
    gone?.();
  }, durationMs);
}

export function hideNotice(): void {
  clearTimeout(timer);
  notice = undefined;
  changed();
}
