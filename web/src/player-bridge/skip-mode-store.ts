/**
 * What the player view does at a commercial break on a player's screen: the mode its
 * player process says (the player's own, else the household's, from its heartbeat).
 * Undefined until told, and always in a plain browser (the app reads the household's).
 */
import type { CommercialSkipMode } from '../api/server-types';

let mode: CommercialSkipMode | undefined;
const listeners = new Set<() => void>();

export function playerSkipMode(): CommercialSkipMode | undefined {
  return mode;
}

export function subscribePlayerSkipMode(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function setPlayerSkipMode(next: CommercialSkipMode): void {
  if (next === mode) return;
  mode = next;
  listeners.forEach((listener) => listener());
}
