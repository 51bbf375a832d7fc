/**
 * Where a recording goes under the recordings directory, named the way the importer
 * reads names back: `TV/<Show>/<Show> S01E02 <date> <title>.ts` or
 * `Movies/<Title> (<Year>).ts`.
 */
import { join } from 'node:path';

export interface RecordingNaming {
  kind: 'episode' | 'movie';
  title: string;
  episodeTitle?: string | undefined;
  season?: number | undefined;
  episode?: number | undefined;
  year?: number | undefined;
  /** Epoch seconds: the air date in the name is the recording's local date. */
  start: number;
}

/** A name that is safe on every common file system: no separators, control or reserved characters, no trailing dots. */
export function safeName(text: string, max = 120): string {
  const cleaned = text
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    // Leading dots and spaces together (". .x" left ".x", a hidden file), and trailing ones after cutting to length.
    .replace(/^[. ]+/, '');
  const short = [...cleaned]
    .slice(0, max)
    .join('')
    .replace(/[. ]+$/, '');
  return short || 'Untitled';
}

export function localDate(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The path relative to the recordings directory. */
export function recordingRelativePath(naming: RecordingNaming): string {
  const title = safeName(naming.title);
  if (naming.kind === 'movie') return join('Movies', `${title}${naming.year ? ` (${naming.year})` : ''}.ts`);
  const pad = (n: number) => String(n).padStart(2, '0');
  const parts = [title];
  if (naming.season !== undefined && naming.episode !== undefined)
    parts.push(`S${pad(naming.season)}E${pad(naming.episode)}`);
  parts.push(localDate(naming.start));
  // A local time keeps two untitled airings of one day apart.
  if (naming.episodeTitle) parts.push(safeName(naming.episodeTitle, 80));
  else parts.push(new Date(naming.start * 1000).toTimeString().slice(0, 5).replace(':', '.'));
  return join('TV', title, `${parts.join(' ')}.ts`);
}

/** `name.ts`, else `name (2).ts`, `name (3).ts`, … : the first that `exists` says is free. */
export function uniquePath(path: string, exists: (candidate: string) => boolean): string {
  if (!exists(path)) return path;
  const stem = path.replace(/\.ts$/, '');
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n}).ts`;
    if (!exists(candidate)) return candidate;
  }
}
