/**
 * Which guide channel describes which channel number. A channel's `tvg-id` names its
 * guide channel exactly; failing that, a guide channel with the same number, then
 * one whose display name is the channel's name (case and spacing ignored).
 */
export interface MatchableChannel {
  number: string;
  name: string;
  guide_id: string | null;
  guide_name: string | null;
}

export interface MatchableGuideChannel {
  guide_id: string;
  xmltv_id: string;
  number: string | null;
  displayNames: readonly string[];
}

/** `${guide_id}\t${xmltv_id}` → the channel numbers it describes. */
export type GuideChannelMap = Map<string, string[]>;

export const guideKey = (guideId: string, xmltvId: string) => `${guideId}\t${xmltvId}`;

const normalise = (name: string) => name.toLowerCase().replace(/\s+/g, ' ').trim();

export function matchGuideChannels(channels: readonly MatchableChannel[], guideChannels: readonly MatchableGuideChannel[]): GuideChannelMap {
  const byId = new Map<string, MatchableGuideChannel>();
  const byNumber = new Map<string, MatchableGuideChannel>();
  const byName = new Map<string, MatchableGuideChannel>();
  // The first guide to name a channel wins, so adding a second guide never moves a match.
  for (const gc of guideChannels) {
    if (!byId.has(gc.xmltv_id)) byId.set(gc.xmltv_id, gc);
    if (gc.number && !byNumber.has(gc.number)) byNumber.set(gc.number, gc);
    for (const name of gc.displayNames) {
      const key = normalise(name);
      if (key && !byName.has(key)) byName.set(key, gc);
      // A display name that is a channel number ("12.1") serves the number match too.
      if (/^\d+([.-]\d+)?$/.test(name.trim()) && !byNumber.has(name.trim().replace('-', '.'))) byNumber.set(name.trim().replace('-', '.'), gc);
    }
  }
  const map: GuideChannelMap = new Map();
  const assigned = new Set<string>();
  for (const channel of channels) {
    if (assigned.has(channel.number)) continue;
    const match =
      (channel.guide_id ? byId.get(channel.guide_id) : undefined) ??
      byNumber.get(channel.number) ??
      (channel.guide_name ? byName.get(normalise(channel.guide_name)) : undefined) ??
      byName.get(normalise(channel.name));
    if (!match) continue;
    assigned.add(channel.number);
    const key = guideKey(match.guide_id, match.xmltv_id);
    const numbers = map.get(key);
    if (numbers) numbers.push(channel.number);
    else map.set(key, [channel.number]);
  }
  return map;
}
