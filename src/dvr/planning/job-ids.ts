/**
 * Job ids: `<start>-<n>`, the shape clients parse (the first number the start in epoch
 * seconds, padding included). The second is the rule's id; when one rule selects several
 * programmes that start at the same second, one of them has that and each other one the
 * rule id + k × 2^32 (k = 1, 2, ...): still the rule's id modulo 2^32, never another
 * rule's id.
 *
 * Which programme has which k is stable: a programme keeps the id it was given before
 * (the stored jobs are passed in), an id that is held (a recording, a finished job, a
 * user's skip) is never given to another programme, and the rest, in channel-number
 * order, take the lowest k free.
 */
import { pushTo } from '../../common/multi-map.js';

export const SAME_START_STEP = 2 ** 32;

/** What an id is given to: a candidate of the plan. */
export interface IdCandidate {
  start: number;
  ruleId: number;
  /** What makes it one programme (programmeKeyOf). */
  programme: string;
  /** Its first channel: the order of those without an id yet. */
  channel: string;
  /** Its group's key (`<start>-<rule id>`), kept by setJobIds: candidates are placed again after every rule change. */
  group?: string;
  /** The id setJobIds gave it. */
  jobId?: string;
}

/** The two numbers of a job id; undefined for anything else. */
export function parseJobId(id: string): { start: number; n: number } | undefined {
  // Called for every stored job at each plan: no regular expression.
  const dash = id.indexOf('-');
  if (dash <= 0 || dash === id.length - 1 || !isDigits(id, 0, dash) || !isDigits(id, dash + 1, id.length))
    return undefined;
  const start = Number(id.slice(0, dash));
  const n = Number(id.slice(dash + 1));
  return Number.isSafeInteger(start) && Number.isSafeInteger(n) ? { start, n } : undefined;
}

function isDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** The rule a job id belongs to (its second number modulo 2^32). */
export function ruleOfJobId(id: string): number | undefined {
  const parsed = parseJobId(id);
  return parsed && parsed.n % SAME_START_STEP;
}

// One collator: localeCompare with options makes one per call (most of a re-plan's id time).
export const byChannelNumber = new Intl.Collator('en', { numeric: true }).compare;

const idAt = (start: number, ruleId: number, k: number) => `${start}-${ruleId + k * SAME_START_STEP}`;
/** The id of k = 0, which names the group of a rule's programmes starting at one second. */
const groupOf = (start: number, ruleId: number) => `${start}-${ruleId}`;

/**
 * Ids for the candidates. `known`: id → programme of the jobs stored already (planned,
 * recording or finished); `held`: those of them no other programme may have.
 */
export function assignJobIds<C extends IdCandidate>(
  candidates: readonly C[],
  known: ReadonlyMap<string, string> = new Map(),
  held: ReadonlySet<string> = new Set(known.keys()),
): Map<C, string> {
  const grouped = [...candidates].sort((a, b) => a.start - b.start || a.ruleId - b.ruleId);
  setJobIds(grouped, known, held);
  return new Map(candidates.map((candidate) => [candidate, candidate.jobId as string]));
}

/**
 * assignJobIds for a plan: each candidate's id written to its `jobId`. The candidates of
 * a group (one rule, one start) must be next to each other, as a plan's order has them:
 * a 14-day plan places tens of thousands after every rule change, so no map is made.
 */
export function setJobIds(
  candidates: readonly IdCandidate[],
  known: ReadonlyMap<string, string>,
  held: ReadonlySet<string>,
): void {
  const knownIdsOf = knownIdsIndex(known);
  for (let first = 0; first < candidates.length; ) {
    const member = candidates[first]!;
    const group = (member.group ??= groupOf(member.start, member.ruleId));
    let end = first + 1;
    while (
      end < candidates.length &&
      (candidates[end]!.group ??= groupOf(candidates[end]!.start, candidates[end]!.ruleId)) === group
    )
      end++;
    if (end === first + 1) {
      // Most groups: one programme, which keeps its id, or takes the lowest one not held for another.
      let id = known.get(group) === member.programme ? group : knownIdsOf(group, member.programme)[0];
      for (let k = 0; id === undefined; k++) {
        const candidate = idAt(member.start, member.ruleId, k);
        if (!held.has(candidate) || known.get(candidate) === member.programme) id = candidate;
      }
      member.jobId = id;
    } else setGroupIds(candidates.slice(first, end), known, held, knownIdsOf);
    first = end;
  }
}

/** Ids for several programmes of one rule starting at one second: known ones kept, the rest by channel number. */
function setGroupIds(
  members: IdCandidate[],
  known: ReadonlyMap<string, string>,
  held: ReadonlySet<string>,
  knownIdsOf: KnownIds,
): void {
  const { start, ruleId, group } = members[0]!;
  members.sort((a, b) => byChannelNumber(a.channel, b.channel) || a.programme.localeCompare(b.programme));
  const used = new Set<string>();
  const rest: IdCandidate[] = [];
  for (const member of members) {
    const id = knownIdsOf(group as string, member.programme).find((candidate) => !used.has(candidate));
    if (id === undefined) rest.push(member);
    else {
      member.jobId = id;
      used.add(id);
    }
  }
  let k = 0;
  for (const member of rest) {
    // Skip ids in use in this plan, and ids held for another programme.
    while (
      used.has(idAt(start, ruleId, k)) ||
      (held.has(idAt(start, ruleId, k)) && known.get(idAt(start, ruleId, k)) !== member.programme)
    )
      k++;
    member.jobId = idAt(start, ruleId, k);
    used.add(member.jobId);
  }
}

/** The known ids of a group's programme, lowest k first. */
type KnownIds = (group: string, programme: string) => string[];

/** Digits of the smallest second number with k ≥ 1 (2^32): shorter ones are a group's own key (k = 0). */
const SAME_START_DIGITS = String(SAME_START_STEP).length;

/**
 * The known ids by group and programme. An id of k = 0 is its group's key and is looked
 * up as it is; those of k ≥ 1 (a few, if any) are indexed, once, when first asked for.
 */
function knownIdsIndex(known: ReadonlyMap<string, string>): KnownIds {
  let index: Map<string, Map<string, string[]>> | undefined;
  const others = () => {
    index = new Map();
    for (const [id, programme] of known) {
      if (id.length - id.indexOf('-') - 1 < SAME_START_DIGITS) continue;
      const parsed = parseJobId(id);
      if (!parsed) continue;
      const group = groupOf(parsed.start, parsed.n % SAME_START_STEP);
      let programmes = index.get(group);
      if (!programmes) index.set(group, (programmes = new Map()));
      pushTo(programmes, programme, id);
    }
    for (const programmes of index.values())
      for (const list of programmes.values()) list.sort((a, b) => parseJobId(a)!.n - parseJobId(b)!.n);
    return index;
  };
  return (group, programme) => {
    const rest = (index ?? others()).get(group)?.get(programme) ?? [];
    return known.get(group) === programme ? [group, ...rest] : rest;
  };
}
