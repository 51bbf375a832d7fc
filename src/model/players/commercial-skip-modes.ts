/**
 * How a player treats a commercial break (pure values, no schema library: the web app
 * bundles this). Off: marks on the seek bar only. Ask: a "Skip ad" prompt for a few
 * seconds. Auto: jumps over it and offers Undo.
 */
export const COMMERCIAL_SKIP_MODES = ['off', 'ask', 'auto'] as const;
export type CommercialSkipMode = (typeof COMMERCIAL_SKIP_MODES)[number];
/** What a household gets until it chooses: the gentle one, a prompt. */
export const DEFAULT_COMMERCIAL_SKIP: CommercialSkipMode = 'ask';

export function isCommercialSkipMode(value: unknown): value is CommercialSkipMode {
  return typeof value === 'string' && (COMMERCIAL_SKIP_MODES as readonly string[]).includes(value);
}
