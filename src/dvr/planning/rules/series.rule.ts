/** Series rules: every airing of a series, by the guide's series id or by exact title (case ignored). */
import { SeriesRuleSchema, type SeriesRule } from '../../../model/dvr/rule.schemas.js';
import { BadRequestError } from '../../../common/errors.js';
import { pushTo } from '../../../common/multi-map.js';
import { isAscii, normaliseOptions, type RuleType, type StoredRuleOf } from './rule-type.js';

export { SeriesRuleSchema };
export type { SeriesRule };
type Stored = StoredRuleOf<SeriesRule>;

/** Rules by series id, and (those without one) by lower-case title. */
function index(rules: readonly Stored[]) {
  const bySeriesId = new Map<string, Stored[]>();
  const byTitle = new Map<string, Stored[]>();
  for (const rule of rules) {
    const d = rule.definition;
    if (d.series_id) pushTo(bySeriesId, d.series_id, rule);
    else if (d.title) pushTo(byTitle, d.title.toLowerCase(), rule);
  }
  return { bySeriesId, byTitle };
}

export const seriesRule: RuleType<'series', SeriesRule> = {
  type: 'series',
  form: {
    label: 'Series',
    help: 'Every airing of a series, by its exact title (or the guide’s series id).',
    fields: [
      { name: 'title', input: 'text', label: 'Series title', hint: 'Exactly as the guide writes it (case ignored).' },
      { name: 'series_id', input: 'text', label: 'Guide series id (optional)' },
    ],
    oneOf: {
      fields: ['title', 'series_id'],
      message: 'Give the series title as the guide writes it (or its series id).',
    },
    summaries: ['Series “{title}”', 'Series id {series_id}'],
  },
  recordsByTime: false,
  jobsAreTheirTime: false,
  schema: SeriesRuleSchema,
  check(definition) {
    if (!definition.series_id && !definition.title)
      throw new BadRequestError('series_id', 'A series rule needs "series_id" or "title".');
  },
  normalise: normaliseOptions,
  endsAt: () => undefined,
  displayName: (d) => d.name ?? d.title ?? d.series_id ?? 'series',
  guideNeeds(rules) {
    const { bySeriesId, byTitle } = index(rules);
    return {
      channels: [],
      needsSummary: false,
      matches: (title, _summary, seriesId) =>
        (seriesId !== null && bySeriesId.has(seriesId)) || (byTitle.size > 0 && byTitle.has(title.toLowerCase())),
      query: [...byTitle.keys()].every(isAscii)
        ? { seriesIds: [...bySeriesId.keys()], titles: [...byTitle.keys()], substrings: [] }
        : undefined,
    };
  },
  planner(rules, sink) {
    const { bySeriesId, byTitle } = index(rules);
    // Titles repeat (reruns, simulcasts): each is lower-cased once per plan.
    const lowerTitles = new Map<string, string>();
    return {
      see(airing) {
        if (airing.seriesId && bySeriesId.size > 0)
          for (const rule of bySeriesId.get(airing.seriesId) ?? []) sink.airing(rule, airing, airing.channels, true);
        if (byTitle.size === 0) return;
        let lower = lowerTitles.get(airing.title);
        if (lower === undefined) lowerTitles.set(airing.title, (lower = airing.title.toLowerCase()));
        for (const rule of byTitle.get(lower) ?? []) sink.airing(rule, airing, airing.channels, true);
      },
      finish: () => undefined,
    };
  },
  cli: {
    usage: 'series <title> [--series-id ID]',
    body(value, options) {
      const body: Record<string, unknown> = {};
      if (options.seriesId) body.series_id = options.seriesId;
      if (value) body.title = value;
      return body;
    },
    describe: (d) => `series ${d.title ?? d.series_id ?? '(no title)'}`,
  },
};
