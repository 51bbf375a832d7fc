/**
 * Job ids: `<start>-<n>`, the shape clients parse (the first number the start in epoch
 * seconds, padding included). The second is the rule's id; when one rule selects several
 * programmes that start at the same second, one of them has that and each other one the
 * rule id + k × 2^32 (k = 1, 2, ...): still the rule's id modulo 2^32, never another
 * rule's id.
 *
 * Which programme has which k is stable: a programme keeps the id it was given before
 * (the stored jobs are passed in), an id once given to a programme is never given to
 * another (a user's skip, a recording, a finished job stay with their programme), and
 * the rest, in channel-number order, take the lowest k free.
 */
import { pushTo } from '../common/multi-map.js';

export const SAME_START_STEP = 2 ** 32;

/** What an id is given to: a candidate of the plan. */
export interface IdCandidate {
  start: number;
  ruleId: number;
  /** What makes it one programme (programmeKeyOf). */
  programme: string;
  /** Its first channel: the order of those without an id yet. */
  channel: string;
}

/** The two numbers of a job id; undefined for anything else. */
export function parseJobId(id: string): { start: number; n: number } | undefined {
  const match = /^(\d+)-(\d+)$/.exec(id);
  if (!match) return undefined;
  const start = Number(match[1]);
  const n = Number(match[2]);
  return Number.isSafeInteger(start) && Number.isSafeInteger(n) ? { start, n } : undefined;
}

/** The rule a job id belongs to (its second number modulo 2^32). */
export function ruleOfJobId(id: string): number | undefined {
  const parsed = parseJobId(id);
  return parsed && parsed.n % SAME_START_STEP;
}

const idAt = (start: number, ruleId: number, k: number) => `${start}-${ruleId + k * SAME_START_STEP}`;
const groupOf = (start: number, ruleId: number) => `${start}-${ruleId}`;

/**
 * Ids for the candidates. `known`: id → programme of the jobs stored already (planned,
 * recording or finished).
 */
export function assignJobIds<C extends IdCandidate>(candidates: readonly C[], known: ReadonlyMap<string, string> = new Map()): Map<C, string> {
  const groups = new Map<string, C[]>();
  for (const candidate of candidates) pushTo(groups, groupOf(candidate.start, candidate.ruleId), candidate);
  const knownByGroup = indexKnown(known, groups);
  const ids = new Map<C, string>();
  for (const [group, members] of groups) {
    const { start, ruleId } = members[0]!;
    const before = knownByGroup.get(group);
    if (!before && members.length === 1) {
      ids.set(members[0]!, idAt(start, ruleId, 0));
      continue;
    }
    members.sort((a, b) => a.channel.localeCompare(b.channel, 'en', { numeric: true }) || a.programme.localeCompare(b.programme));
    const used = new Set<string>();
    const rest: C[] = [];
    for (const member of members) {
      const id = before?.get(member.programme)?.find((candidate) => !used.has(candidate));
      if (id === undefined) rest.push(member);
      else {
        ids.set(member, id);
        used.add(id);
      }
    }
    let k = 0;
    for (const member of rest) {
      // Skip ids in use in this plan, and ids stored for another programme.
      while (used.has(idAt(start, ruleId, k)) || (known.has(idAt(start, ruleId, k)) && known.get(idAt(start, ruleId, k)) !== member.programme)) k++;
      ids.set(member, idAt(start, ruleId, k));
      used.add(idAt(start, ruleId, k));
    }
  }
  return ids;
}

/** The known ids of the groups the candidates fall in: group → programme → its ids, lowest k first. */
function indexKnown(known: ReadonlyMap<string, string>, groups: ReadonlyMap<string, unknown>): Map<string, Map<string, string[]>> {
  const index = new Map<string, Map<string, string[]>>();
  for (const [id, programme] of known) {
    const parsed = parseJobId(id);
    if (!parsed) continue;
    const group = groupOf(parsed.start, parsed.n % SAME_START_STEP);
    if (!groups.has(group)) continue;
    let programmes = index.get(group);
    if (!programmes) index.set(group, (programmes = new Map()));
    pushTo(programmes, programme, id);
  }
  for (const programmes of index.values()) for (const list of programmes.values()) list.sort((a, b) => parseJobId(a)!.n - parseJobId(b)!.n);
  return index;
}
