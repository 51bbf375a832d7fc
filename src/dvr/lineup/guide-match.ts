/**
 * Which guide channel describes which channel number. Guides are tried in priority
 * order (a channel's own `guide_priority` first, then every guide by its priority); in
 * each, a channel's `tvg-id` names its guide channel exactly, failing that a guide
 * channel with the same number, then one whose display name is the channel's name (case
 * and spacing ignored). The first guide that describes a channel gives all its
 * programmes. A guide channel the user chose for a channel (`guide_channel`) wins over all.
 */
export interface MatchableChannel {
  number: string;
  name: string;
  guide_id: string | null;
  guide_name: string | null;
  /** `guide id` TAB `xmltv id`: the user's choice. */
  guide_channel?: string | null;
  /** A JSON array of guide ids to try first. */
  guide_priority?: string | null;
}

/** Listed in the guides' priority order (the first guide first). */
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
const CHANNEL_NUMBER_NAME = /^\d+([.-]\d+)?$/;

/** One guide's channels, findable by id, number and name (the first it lists wins each). */
class GuideIndex {
  readonly byId = new Map<string, MatchableGuideChannel>();
  readonly byNumber = new Map<string, MatchableGuideChannel>();
  readonly byName = new Map<string, MatchableGuideChannel>();

  add(gc: MatchableGuideChannel): void {
    if (!this.byId.has(gc.xmltv_id)) this.byId.set(gc.xmltv_id, gc);
    if (gc.number && !this.byNumber.has(gc.number)) this.byNumber.set(gc.number, gc);
    for (const name of gc.displayNames) {
      const key = normalise(name);
      if (key && !this.byName.has(key)) this.byName.set(key, gc);
      // A display name that is a channel number ("12.1") serves the number match too.
      const trimmed = name.trim();
      if (CHANNEL_NUMBER_NAME.test(trimmed) && !this.byNumber.has(trimmed.replace('-', '.')))
        this.byNumber.set(trimmed.replace('-', '.'), gc);
    }
  }

  find(channel: MatchableChannel): MatchableGuideChannel | undefined {
    return (
      (channel.guide_id ? this.byId.get(channel.guide_id) : undefined) ??
      this.byNumber.get(channel.number) ??
      (channel.guide_name ? this.byName.get(normalise(channel.guide_name)) : undefined) ??
      this.byName.get(normalise(channel.name))
    );
  }
}

function guideIdsOf(priority: string | null | undefined): string[] {
  if (!priority) return [];
  try {
    const ids: unknown = JSON.parse(priority);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

export function matchGuideChannels(
  channels: readonly MatchableChannel[],
  guideChannels: readonly MatchableGuideChannel[],
): GuideChannelMap {
  const guides = new Map<string, GuideIndex>();
  const exact = new Map<string, MatchableGuideChannel>();
  for (const gc of guideChannels) {
    let index = guides.get(gc.guide_id);
    if (!index) guides.set(gc.guide_id, (index = new GuideIndex()));
    index.add(gc);
    exact.set(guideKey(gc.guide_id, gc.xmltv_id), gc);
  }
  const map: GuideChannelMap = new Map();
  const assigned = new Set<string>();
  for (const channel of channels) {
    if (assigned.has(channel.number)) continue;
    const match =
      (channel.guide_channel ? exact.get(channel.guide_channel) : undefined) ?? firstDescribing(channel, guides);
    if (!match) continue;
    assigned.add(channel.number);
    const key = guideKey(match.guide_id, match.xmltv_id);
    const numbers = map.get(key);
    if (numbers) numbers.push(channel.number);
    else map.set(key, [channel.number]);
  }
  return map;
}

/** The channel's guide channel in the first guide, in its order, that describes it. */
function firstDescribing(
  channel: MatchableChannel,
  guides: ReadonlyMap<string, GuideIndex>,
): MatchableGuideChannel | undefined {
  const own = guideIdsOf(channel.guide_priority);
  for (const id of own) {
    const match = guides.get(id)?.find(channel);
    if (match) return match;
  }
  for (const [id, index] of guides) {
    if (own.includes(id)) continue;
    const match = index.find(channel);
    if (match) return match;
  }
  return undefined;
}
