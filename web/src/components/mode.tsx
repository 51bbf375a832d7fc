/** Which layout the app is in: the usual one, or TV mode (everything under /tv). */
import { useParams } from '@tanstack/react-router';

export type Mode = 'tv' | undefined;

export function useMode(): Mode {
  const { mode } = useParams({ strict: false }) as { mode?: string };
  return mode === 'tv' ? 'tv' : undefined;
}
