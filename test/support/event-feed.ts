/** A client of GET /dvr/events for tests: every event the stream sends, as it sends it. */
import type { AntennaEvent } from '../../src/model/events/event.schemas.js';

export interface SseEvent {
  id: number;
  event: string;
  data: AntennaEvent;
}

/** The complete frames at the start of `text` and what is left after them (comments skipped). */
export function takeFrames(text: string): { frames: SseEvent[]; rest: string } {
  const frames: SseEvent[] = [];
  let rest = text;
  let end: number;
  while ((end = rest.indexOf('\n\n')) >= 0) {
    const lines = rest
      .slice(0, end)
      .split('\n')
      .filter((line) => !line.startsWith(':'));
    rest = rest.slice(end + 2);
    const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    const data = field('data');
    if (data)
      frames.push({ id: Number(field('id')), event: field('event') ?? '', data: JSON.parse(data) as AntennaEvent });
  }
  return { frames, rest };
}

/** Reads `url` (an SSE stream) in the background into `events` until stopped. */
export async function collectEvents(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ response: Response; events: SseEvent[]; stop(): void; ended: Promise<void> }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const reader = response.body!.getReader();
  const ended = (async () => {
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const taken = takeFrames(text + Buffer.from(value).toString());
        events.push(...taken.frames);
        text = taken.rest;
      }
    } catch {
      // aborted
    }
  })();
  return { response, events, stop: () => controller.abort(), ended };
}
