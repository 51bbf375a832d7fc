/** Keyword rules: every airing whose title or summary contains a word or phrase (case ignored). */
import { KeywordRuleSchema, type KeywordRule } from '../../../model/dvr/rule.schemas.js';
import { isAscii, normaliseOptions, type RuleType, type StoredRuleOf } from './rule-type.js';

export { KeywordRuleSchema };
export type { KeywordRule };

/**
 * Which of `keywords` a text contains (case ignored), fast enough for every title and
 * summary of a 14-day guide. One case-blind pattern of all keywords, longest first, is
 * searched from each match's start + 1, so every position where some keyword begins is
 * found; the keyword found there implies every keyword it contains (a shorter one
 * beginning at the same place is one of those). Titles repeat (reruns, simulcasts), so
 * their answers are remembered. Non-ASCII keywords fall back to one search per keyword,
 * where toLowerCase and the pattern's case folding could disagree.
 */
export function keywordMatcher<R>(
  keywords: readonly { rule: R; needle: string }[],
): (text: string | undefined, remember: boolean) => readonly R[] {
  if (keywords.length === 0) return () => [];
  const needles = [...new Set(keywords.map(({ needle }) => needle))].sort((a, b) => b.length - a.length);
  const rulesOf = new Map<string, R[]>();
  for (const needle of needles) {
    const contained = keywords.filter((k) => needle.includes(k.needle)).map((k) => k.rule);
    rulesOf.set(needle, [...new Set(contained)]);
  }
  const ascii = needles.every(isAscii);
  const pattern = new RegExp(needles.map((needle) => needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  const search = (text: string): R[] => {
    if (!ascii) {
      const lower = text.toLowerCase();
      return keywords.filter(({ needle }) => lower.includes(needle)).map(({ rule }) => rule);
    }
    const found: R[] = [];
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      for (const rule of rulesOf.get(match[0].toLowerCase()) ?? []) if (!found.includes(rule)) found.push(rule);
      pattern.lastIndex = match.index + 1;
    }
    return found;
  };
  const remembered = new Map<string, readonly R[]>();
  return (text, remember) => {
    if (!text) return [];
    if (!remember) return search(text);
    let found = remembered.get(text);
    if (!found) remembered.set(text, (found = search(text)));
    return found;
  };
}

const matcherFor = (rules: readonly StoredRuleOf<KeywordRule>[]) =>
  keywordMatcher(rules.map((rule) => ({ rule, needle: rule.definition.keyword.toLowerCase() })));

export const keywordRule: RuleType<'keyword', KeywordRule> = {
  type: 'keyword',
  form: {
    label: 'Keyword',
    help: 'Every airing whose title or summary contains a word or phrase.',
    fields: [
      {
        name: 'keyword',
        input: 'text',
        label: 'Word or phrase',
        hint: 'Found in a programme’s title or summary (case ignored).',
      },
    ],
    summaries: ['Keyword “{keyword}”'],
  },
  recordsByTime: false,
  jobsAreTheirTime: false,
  schema: KeywordRuleSchema,
  check: () => undefined,
  normalise: normaliseOptions,
  endsAt: () => undefined,
  displayName: (d) => d.name ?? d.keyword,
  guideNeeds(rules) {
    const rulesIn = matcherFor(rules);
    const keywords = rules.map((rule) => rule.definition.keyword.toLowerCase());
    return {
      channels: [],
      needsSummary: rules.length > 0,
      matches: (title, summary) =>
        rulesIn(title, true).length > 0 || (summary !== null && rulesIn(summary, false).length > 0),
      query: keywords.every(isAscii) ? { seriesIds: [], titles: [], substrings: keywords } : undefined,
    };
  },
  planner(rules, sink) {
    const rulesIn = matcherFor(rules);
    return {
      see(airing) {
        if (rules.length === 0) return;
        const inTitle = rulesIn(airing.title, true);
        for (const rule of inTitle) sink.airing(rule, airing, airing.channels, true);
        for (const rule of rulesIn(airing.summary, false))
          if (!inTitle.includes(rule)) sink.airing(rule, airing, airing.channels, true);
      },
      finish: () => undefined,
    };
  },
  cli: {
    usage: 'keyword <words>',
    body: (value) => ({ keyword: value }),
    describe: (d) => `keyword "${d.keyword}"`,
  },
};
