/**
 * The DVR's decisions, simulated as the scheduler makes them: a clock steps through an
 * evening in 10-minute ticks; at each tick the guide may change (a programme moved,
 * cancelled or extended) or a rule be paused, the plan is made again (plan() with the
 * running and finished jobs, as JobScheduler.replan gives it), extensions are applied,
 * due jobs start on the source the plan chose and run to their end, and ended ones
 * settle. Guides (simulcasts, reruns, identical start times across channels) and rule
 * sets are random (fast-check, a fixed seed; a failure prints its seed and path, and
 * DVR_SIMULATION_SEED=<n> runs another series). At every tick:
 * - every programme a rule selects is accounted for: a job of it in the plan (placed,
 *   or skipped with a reason), or its episode recorded or planned elsewhere (series and
 *   keyword rules record an episode once);
 * - no source is asked for more streams than it has, planned and running together;
 * - a job skipped for want of a tuner could not fit beside the running jobs and those
 *   of its own priority or higher: priorities are honoured;
 * - nothing is recorded twice (ids, and episodes of series and keyword rules), and a
 *   recording whose programme the guide extends runs to the new end (within the limit);
 * - (every fourth tick) each rule's candidates found alone and placed together give the
 *   same plan: what the scheduler's re-plan after one rule's change relies on; and two
 *   rule changes in a row (paused, removed, a new priority or padding, a new rule),
 *   placed again from the last placing (placeAgain), give what placing all gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Airing,
  findCandidates,
  MAX_EXTENSION,
  placeAll,
  type PlannerInput,
  type Placing,
  plan,
  programmeKeyOf,
  type RunningJob,
} from '../../src/dvr/planning/job-planner.js';
import { placeAgain } from '../../src/dvr/planning/job-placing-again.js';
import type { RuleDefinition, StoredRule } from '../../src/dvr/planning/rules/rule-types.js';
import type { PlannedJob } from '../../src/model/dvr/planned-job.js';

const T0 = 1_900_000_800; // a multiple of 600: every start and padding below lands on a tick
const TICK = 600;
const TICKS = 48; // eight hours
const SEED = Number(process.env.DVR_SIMULATION_SEED ?? 20_261_125);
const RUNS = 2_000;

const CHANNELS = ['1', '2', '3', '4', '5'];
const TITLES = ['Alpha Files', 'Beta Kitchen', 'Gamma Quiz', 'Delta News'];

interface Scenario {
  tuners: number;
  airings: Airing[];
  rules: StoredRule[];
  events: { tick: number; kind: 'move' | 'cancel' | 'extend' | 'pause'; target: number; by: number }[];
}

/** Each channel's evening: programmes back to back, 30 to 120 minutes, episodes 1-3 of a few titles (reruns happen). */
const channelEvening = (channel: string) =>
  fc
    .array(
      fc.record({
        slots: fc.integer({ min: 1, max: 4 }),
        title: fc.constantFrom(...TITLES),
        episode: fc.integer({ min: 1, max: 3 }),
        simulcast: fc.boolean(),
      }),
      {
        minLength: 4,
        maxLength: 12,
      },
    )
    .map((shows) => {
      let start = T0;
      return shows.map(({ slots, title, episode, simulcast }) => {
        const airing: Airing = {
          channels: channel === '1' && simulcast ? ['1', '4'] : [channel],
          start,
          stop: start + slots * 1800,
          title,
          programId: `EP-${title}-${episode}`,
        };
        start = airing.stop;
        return airing;
      });
    });

const ruleArb = (airings: Airing[]) =>
  fc
    .record({
      kind: fc.constantFrom('series', 'keyword', 'program', 'slot'),
      title: fc.constantFrom(...TITLES),
      pick: fc.nat(),
      channel: fc.constantFrom(...CHANNELS),
      startTick: fc.integer({ min: 0, max: TICKS }),
      priority: fc.integer({ min: -1, max: 2 }),
      paddingBefore: fc.constantFrom(0, 0, TICK),
      paddingAfter: fc.constantFrom(0, TICK),
    })
    .map(({ kind, title, pick, channel, startTick, priority, paddingBefore, paddingAfter }): RuleDefinition => {
      const options = { priority, padding_before: paddingBefore, padding_after: paddingAfter };
      if (kind === 'series') return { type: 'series', title, ...options };
      if (kind === 'keyword') return { type: 'keyword', keyword: title.split(' ')[1]!, ...options };
      if (kind === 'slot')
        return { type: 'slot', channel, start_time: T0 + startTick * TICK, duration: 3600, ...options };
      // As the server makes it: the airing's programme id and title kept (program.rule.ts complete).
      const airing = airings[pick % airings.length]!;
      return {
        type: 'program',
        channel: airing.channels[0]!,
        start_time: airing.start,
        program_id: airing.programId!,
        title: airing.title,
        ...options,
      };
    });

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .tuple(...CHANNELS.filter((c) => c !== '4').map(channelEvening), fc.integer({ min: 1, max: 3 }))
  .chain(([...parts]) => {
    const tuners = parts.pop() as number;
    const airings = (parts as Airing[][]).flat();
    return fc.record({
      tuners: fc.constant(tuners),
      airings: fc.constant(airings),
      rules: fc
        .array(ruleArb(airings), { minLength: 1, maxLength: 6 })
        .map((definitions) => definitions.map((definition, i) => ({ id: i + 1, definition }))),
      events: fc.array(
        fc.record({
          tick: fc.integer({ min: 0, max: TICKS - 1 }),
          kind: fc.constantFrom('move', 'cancel', 'extend', 'pause'),
          target: fc.nat(),
          by: fc.integer({ min: -3, max: 3 }),
        }),
        { maxLength: 8 },
      ),
    });
  });

/** Channel 4 is on both sources; the tuner carries 1-4, the IPTV source 4 and 5 on one stream. */
const SOURCES = new Map([
  ['1', ['tuner']],
  ['2', ['tuner']],
  ['3', ['tuner']],
  ['4', ['tuner', 'iptv']],
  ['5', ['iptv']],
]);

type Stream = Pick<RunningJob, 'channel' | 'start' | 'end'>;

/** The most distinct channels `streams` use at one moment (streams of one channel share a connection). */
function peakChannels(streams: readonly Stream[]): number {
  let peak = 0;
  for (const { start } of streams) {
    const channels = new Set(streams.filter((s) => s.start <= start && start < s.end).map((s) => s.channel));
    peak = Math.max(peak, channels.size);
  }
  return peak;
}

function applyEvent(event: Scenario['events'][number], guide: Airing[], rules: StoredRule[]): void {
  if (event.kind === 'pause') {
    const rule = rules[event.target % rules.length]!;
    rule.definition = { ...rule.definition, paused: !rule.definition.paused };
    return;
  }
  if (guide.length === 0) return;
  const index = event.target % guide.length;
  const airing = guide[index]!;
  if (event.kind === 'cancel') guide.splice(index, 1);
  else if (event.kind === 'move')
    guide[index] = { ...airing, start: airing.start + event.by * TICK, stop: airing.stop + event.by * TICK };
  else guide[index] = { ...airing, stop: airing.stop + (Math.abs(event.by) + 1) * TICK };
}

interface World {
  scenario: Scenario;
  limits: Map<string, number>;
  rules: StoredRule[];
  guide: Airing[];
  running: (RunningJob & { episodeKey?: string | undefined; dedupe: boolean })[];
  settled: Set<string>;
  recordedKeys: Set<string>;
  started: { id: string; episodeKey?: string | undefined; dedupe: boolean; programme: string }[];
  /** The last plan's jobs: with the started ones, what the database would hold (the planner's knownIds). */
  lastPlan: PlannedJob[];
}

const programmeOf = (job: PlannedJob) =>
  programmeKeyOf({
    programId: job.item.program_id,
    title: job.item.title ?? job.name,
    episodeTitle: job.item.episode_title,
  });

const dedupes = (rules: readonly StoredRule[], ruleId: number) =>
  ['series', 'keyword'].includes(rules.find((r) => r.id === ruleId)?.definition.type ?? '');
const priorityOf = (rules: readonly StoredRule[], ruleId: number) =>
  rules.find((r) => r.id === ruleId)?.definition.priority ?? 0;

function selects(definition: RuleDefinition, airing: Airing): boolean {
  if (definition.paused) return false;
  if (definition.type === 'series') return airing.title.toLowerCase() === definition.title?.toLowerCase();
  if (definition.type === 'keyword') return airing.title.toLowerCase().includes(definition.keyword.toLowerCase());
  return false;
}

function tick(world: World, now: number): void {
  const { rules, guide } = world;
  for (const job of world.running.filter((j) => j.end <= now)) world.settled.add(job.id);
  world.running = world.running.filter((j) => j.end > now);
  const knownIds = new Map([
    ...world.lastPlan.map((job) => [job.id, programmeOf(job)] as const),
    ...world.started.map((job) => [job.id, job.programme] as const),
  ]);
  const result = plan({
    now,
    rules,
    airings: guide.filter((a) => a.stop > now),
    channelSources: SOURCES,
    sourceLimits: world.limits,
    recordedKeys: world.recordedKeys,
    running: world.running,
    settledIds: world.settled,
    knownIds,
    heldIds: new Set(world.started.map((job) => job.id)),
    userSkips: new Set(),
  });
  world.lastPlan = result.jobs;
  // What the scheduler does after one rule's change: each rule's candidates found alone, placed together, give the same
  // plan.
  if ((now - T0) % (4 * TICK) === 0) {
    const input = {
      now,
      rules: [],
      airings: [],
      channelSources: SOURCES,
      sourceLimits: world.limits,
      recordedKeys: world.recordedKeys,
      running: world.running,
      settledIds: world.settled,
      knownIds,
      heldIds: new Set(world.started.map((job) => job.id)),
      userSkips: new Set<string>(),
    };
    const alone = rules.flatMap((rule) =>
      [...findCandidates({ ...input, rules: [rule], airings: guide.filter((a) => a.stop > now) }).values()].flat(),
    );
    const placing = placeAll(input, alone);
    expect(placing.plan).toEqual(result);
    checkPlacingAgain(world, input, placing, now);
  }
  checkExtensions(world, result.extensions, now);
  for (const job of world.running) job.end = result.extensions.get(job.id) ?? job.end;
  checkPlan(world, result.jobs, now);
  for (const job of result.jobs) {
    if (job.skipped || job.start > now || job.end <= now) continue;
    const dedupe = dedupes(rules, job.ruleId);
    world.running.push({
      id: job.id,
      ruleId: job.ruleId,
      name: job.name,
      start: job.start,
      end: job.end,
      channel: job.channel!,
      sourceId: job.sourceId!,
      programme: programmeOf(job),
      plannedEnd: job.end,
      episodeKey: job.episodeKey,
      dedupe,
    });
    world.started.push({ id: job.id, episodeKey: job.episodeKey, dedupe, programme: programmeOf(job) });
    if (job.episodeKey) world.recordedKeys.add(job.episodeKey);
  }
  for (const [source, limit] of world.limits) {
    expect(
      peakChannels(
        world.running.filter((j) => j.sourceId === source).map((j) => ({ ...j, start: Math.max(j.start, now) })),
      ),
      `running on ${source}`,
    ).toBeLessThanOrEqual(limit);
  }
}

function checkPlan(world: World, jobs: readonly PlannedJob[], now: number): void {
  const { rules, guide, limits } = world;
  expect(new Set(jobs.map((j) => j.id)).size, 'job ids unique').toBe(jobs.length);
  for (const job of jobs) {
    expect(job.id).toMatch(new RegExp(`^${job.start}-\\d+$`));
    expect(job.skipped, `${job.id}: an error exactly when skipped`).toBe(Boolean(job.error));
  }
  // Capacity: what is planned and what runs, per source, never more channels at once than it has.
  for (const [source, limit] of limits) {
    const streams = [
      ...world.running.filter((j) => j.sourceId === source),
      ...jobs.filter((j) => !j.skipped && j.sourceId === source).map((j) => ({ ...j, channel: j.channel! })),
    ];
    expect(
      peakChannels(streams.map((s) => ({ ...s, start: Math.max(s.start, now) }))),
      `planned on ${source}`,
    ).toBeLessThanOrEqual(limit);
  }
  // Priorities: a job without a tuner could not fit beside the running jobs and those of its priority or higher.
  for (const job of jobs.filter((j) => j.error?.startsWith('no free tuner'))) {
    const priority = priorityOf(rules, job.ruleId);
    for (const channel of job.channels) {
      for (const source of SOURCES.get(channel) ?? []) {
        const before = [
          ...world.running.filter((j) => j.sourceId === source),
          ...jobs
            .filter((j) => !j.skipped && j.sourceId === source && priorityOf(rules, j.ruleId) >= priority)
            .map((j) => ({ ...j, channel: j.channel! })),
        ];
        const streams = [...before, { channel, start: job.start, end: job.end }].filter(
          (s) => s.start < job.end && job.start < s.end,
        );
        expect(
          peakChannels(streams.map((s) => ({ ...s, start: Math.max(s.start, job.start, now) }))),
          `${job.id} skipped though ${source} had room`,
        ).toBeGreaterThan(limits.get(source)!);
      }
    }
  }
  // Coverage: every airing a series or keyword rule selects is a job, or its episode is recorded or planned.
  const planned = new Set(jobs.flatMap((j) => (j.episodeKey ? [j.episodeKey] : [])));
  for (const rule of rules) {
    for (const airing of guide) {
      if (airing.stop <= now || !selects(rule.definition, airing)) continue;
      const key = `pid:${airing.programId}`;
      const own = jobs.some(
        (j) => j.ruleId === rule.id && j.start === airing.start - (rule.definition.padding_before ?? 0),
      );
      const recording = world.running.some((j) => j.ruleId === rule.id && j.programme === key);
      expect(
        own || recording || planned.has(key) || world.recordedKeys.has(key),
        `rule ${rule.id} selects ${airing.title} at ${airing.start - T0}: no job, no recording`,
      ).toBe(true);
    }
  }
  // A program rule is one recording at most, over the whole evening.
  for (const rule of rules.filter((r) => r.definition.type === 'program')) {
    const ofRule = (id: string) => Number(id.split('-')[1]) % 2 ** 32 === rule.id;
    const count = jobs.filter((j) => ofRule(j.id)).length + world.started.filter((s) => ofRule(s.id)).length;
    expect(count, `program rule ${rule.id}`).toBeLessThanOrEqual(1);
  }
}

const EDITS = ['paused', 'removed', 'priority', 'padding', 'added'] as const;

/**
 * One rule changed as a user changes it: the rules after, and the changed rule's id and definition (none when removed).
 */
function editRule(
  rules: readonly StoredRule[],
  pick: number,
): { rules: StoredRule[]; ruleId: number; rule: StoredRule | undefined } {
  const target = rules[pick % rules.length]!;
  const edit = EDITS[pick % EDITS.length]!;
  const others = rules.filter((rule) => rule !== target);
  if (edit === 'removed') return { rules: others, ruleId: target.id, rule: undefined };
  if (edit === 'added') {
    const rule = {
      id: Math.max(...rules.map((r) => r.id)) + 1,
      definition: { ...target.definition, priority: (target.definition.priority ?? 0) + 1 },
    };
    return { rules: [...rules, rule], ruleId: rule.id, rule };
  }
  const d = target.definition;
  const definition =
    edit === 'paused'
      ? { ...d, paused: !d.paused }
      : edit === 'priority'
        ? { ...d, priority: (d.priority ?? 0) + (pick % 2 === 0 ? 2 : -2) }
        : { ...d, padding_after: (d.padding_after ?? 0) + TICK };
  const rule = { id: target.id, definition };
  return { rules: [...others, rule], ruleId: rule.id, rule };
}

/**
 * Two rule changes in a row placed again (placeAgain), each against all placed in full (placeAll), with the ids of the
 * last plan known as the scheduler keeps them.
 */
function checkPlacingAgain(world: World, input: PlannerInput, placing: Placing, now: number): void {
  const airings = world.guide.filter((a) => a.stop > now);
  const found = (rules: readonly StoredRule[], at: PlannerInput) =>
    rules.flatMap((rule) => [...findCandidates({ ...at, rules: [rule], airings }).values()].flat());
  let rules: StoredRule[] = world.rules;
  let last = placing;
  for (const step of [0, 1]) {
    if (rules.length === 0) return;
    const known = new Map([
      ...(input.knownIds ?? []),
      ...last.plan.jobs.map((job) => [job.id, programmeOf(job)] as const),
    ]);
    const at = { ...input, knownIds: known };
    const pick = (now - T0) / TICK + step * 7;
    const edit = editRule(rules, pick);
    rules = edit.rules;
    const before = last.plan.jobs;
    last = placeAgain(last, at, edit.ruleId, edit.rule ? found([edit.rule], at) : []);
    const { changes, ...again } = last.plan;
    const what = `rule ${edit.ruleId} ${EDITS[pick % EDITS.length]} (change ${step + 1})`;
    expect(again, what).toEqual(placeAll(at, found(rules, at)).plan);
    // What the store writes: the plan before, less the jobs gone, with those added, is the plan.
    if (changes) {
      const gone = new Set(changes.gone);
      expect(new Set([...before.filter((job) => !gone.has(job)), ...changes.added]), `${what}: its changes`).toEqual(
        new Set(again.jobs),
      );
    }
  }
}

function checkExtensions(world: World, extensions: ReadonlyMap<string, number>, now: number): void {
  for (const job of world.running) {
    const rule = world.rules.find((r) => r.id === job.ruleId);
    if (!rule || rule.definition.paused || rule.definition.type === 'slot') continue;
    // The airing it records, where it was (a moved one may be followed too, but is not asked for here).
    const airing = world.guide.find(
      (a) =>
        a.channels.includes(job.channel) &&
        `pid:${a.programId}` === job.programme &&
        a.start === job.start + (rule.definition.padding_before ?? 0) &&
        a.stop > now,
    );
    if (!airing) continue;
    const wanted = Math.min(
      airing.stop + (rule.definition.padding_after ?? 0),
      (job.plannedEnd ?? job.end) + MAX_EXTENSION,
    );
    if (wanted > job.end && selectsOrFollows(rule.definition, airing)) {
      // At least to its own channel's new end (a simulcast ending later elsewhere may take it further), never past the
      // limit.
      expect(extensions.get(job.id), `${job.id} extended`).toBeGreaterThanOrEqual(wanted);
      expect(extensions.get(job.id)).toBeLessThanOrEqual((job.plannedEnd ?? job.end) + MAX_EXTENSION);
    }
  }
}

const selectsOrFollows = (definition: RuleDefinition, airing: Airing) =>
  selects(definition, airing) || (definition.type === 'program' && definition.program_id === airing.programId);

function simulate(scenario: Scenario): void {
  const world: World = {
    scenario,
    limits: new Map([
      ['tuner', scenario.tuners],
      ['iptv', 1],
    ]),
    rules: scenario.rules.map((rule) => ({ ...rule })),
    guide: scenario.airings.map((airing) => ({ ...airing })),
    running: [],
    settled: new Set(),
    recordedKeys: new Set(),
    started: [],
    lastPlan: [],
  };
  for (let t = 0; t < TICKS; t++) {
    for (const event of scenario.events.filter((e) => e.tick === t)) applyEvent(event, world.guide, world.rules);
    tick(world, T0 + t * TICK);
  }
  // Nothing recorded twice: no id twice, no episode twice for the rules that record an episode once.
  expect(new Set(world.started.map((s) => s.id)).size).toBe(world.started.length);
  const episodes = world.started.filter((s) => s.dedupe && s.episodeKey).map((s) => s.episodeKey);
  expect(new Set(episodes).size, 'an episode recorded twice').toBe(episodes.length);
}

describe('the DVR, simulated over random guides, rules and changes', () => {
  it(`accounts for every selected programme, never over-commits a tuner, honours priorities, records nothing twice (${RUNS} evenings, seed ${SEED})`, () => {
    fc.assert(fc.property(scenarioArb, simulate), { seed: SEED, numRuns: RUNS });
  }, 120_000);
});
