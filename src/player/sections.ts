/**
 * The app sections `/api/navigate/{section}` names. The compatibility notes list the
 * names clients are seen sending; they are matched ignoring case, with `%20`, `_` and
 * `-` all standing for a space (`Live%20TV`, `live_tv`, `LIVE-TV`).
 */
export const SECTIONS = ['Guide', 'Library', 'Live TV', 'Search'] as const;
export type Section = (typeof SECTIONS)[number];

const normalize = (name: string) =>
  name
    .replace(/%20|[_\s-]+/gi, ' ')
    .trim()
    .replace(/ +/g, ' ')
    .toLowerCase();
const BY_KEY = new Map<string, Section>(SECTIONS.map((section) => [normalize(section), section]));

/** The section `name` means, or undefined for a name no section has. */
export function matchSection(name: string): Section | undefined {
  return BY_KEY.get(normalize(name));
}
