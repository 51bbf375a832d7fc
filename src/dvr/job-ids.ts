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
  // Called for every stored job at each plan: no regular expression.
  const dash = id.indexOf('-');
  if (dash <= 0 || dash === id.length - 1 || !isDigits(id, 0, dash) || !isDigits(id, dash + 1, id.length)) return undefined;
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

const idAt = (start: number, ruleId: number, k: number) => `${start}-${ruleId + k * SAME_START_STEP}`;
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
  const groups = new Map<string, C[]>();
  for (const candidate of candidates) pushTo(groups, groupOf(candidate.start, candidate.ruleId), candidate);
  const knownByGroup = indexKnown(known, groups);
  const ids = new Map<C, string>();
  for (const [group, members] of groups) {
    const { start, ruleId } = members[0]!;
    const before = knownByGroup.get(group);
    if (members.length === 1) {
      // Most groups: one programme, which keeps its id, or takes the lowest one not held for another.
      const member = members[0]!;
      let id = before?.get(member.programme)?.[0];
      for (let k = 0; id === undefined; k++) {
        const candidate = idAt(start, ruleId, k);
        if (!held.has(candidate) || known.get(candidate) === member.programme) id = candidate;
      }
      ids.set(member, id);
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
      // Skip ids in use in this plan, and ids held for another programme.
      while (used.has(idAt(start, ruleId, k)) || (held.has(idAt(start, ruleId, k)) && known.get(idAt(start, ruleId, k)) !== member.programme)) k++;
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
