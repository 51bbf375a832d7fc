/**
 * A rule type is one module and one line in the list (rule-type-list.ts): here a test
 * type, "prefix" (every airing whose title begins with some words), is added to the list
 * and nothing else. The management interface then validates its body, the planner plans
 * its jobs, GET /dvr/rule-types gives the app its form, and an unknown field is refused
 * by its own schema.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DvrService } from '../../src/dvr/dvr.service.js';
import { listJobs } from '../../src/repositories/dvr/jobs.repository.js';
import { buildDvrApp, createDvr, writeM3u, writeXmltv } from '../support/dvr-app.js';
import { type TempLibrary, createTempLibrary } from '../support/temp-library.js';

vi.mock('../../src/dvr/planning/rules/rule-type-list.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/dvr/planning/rules/rule-type-list.js')>();
  const { ruleOptions } = await import('../../src/model/dvr/rule.schemas.js');
  const { normaliseOptions } = await import('../../src/dvr/planning/rules/rule-type.js');
  const schema = Type.Object(
    {
      type: Type.Literal('prefix'),
      prefix: Type.String({ minLength: 1, maxLength: 100, description: 'the first words of the title' }),
      ...ruleOptions,
    },
    { additionalProperties: false, title: 'Prefix rule' },
  );
  type PrefixRule = { type: 'prefix'; prefix: string };
  const prefixRule = {
    type: 'prefix',
    form: {
      label: 'Title start',
      help: 'Every airing whose title begins with these words.',
      fields: [{ name: 'prefix', input: 'text', label: 'Title begins with' }],
      summaries: ['Titles beginning “{prefix}”'],
    },
    recordsByTime: false,
    jobsAreTheirTime: false,
    schema,
    check: () => undefined,
    normalise: normaliseOptions,
    endsAt: () => undefined,
    displayName: (d: PrefixRule) => d.prefix,
    guideNeeds: (rules: { definition: PrefixRule }[]) => ({
      channels: [],
      needsSummary: false,
      matches: (title: string) =>
        rules.some((rule) => title.toLowerCase().startsWith(rule.definition.prefix.toLowerCase())),
    }),
    planner: (
      rules: { definition: PrefixRule }[],
      sink: {
        airing(rule: unknown, airing: { title: string; channels: string[] }, channels: string[], dedupe: boolean): void;
      },
    ) => ({
      see(airing: { title: string; channels: string[] }) {
        for (const rule of rules)
          if (airing.title.toLowerCase().startsWith(rule.definition.prefix.toLowerCase()))
            sink.airing(rule, airing, airing.channels, true);
      },
      finish: () => undefined,
    }),
    cli: {
      usage: 'prefix <words>',
      body: (value: string | undefined) => ({ prefix: value }),
      describe: (d: PrefixRule) => `prefix ${d.prefix}`,
    },
  };
  return { RULE_TYPES: [...real.RULE_TYPES, prefixRule] };
});

let temp: TempLibrary;
let dvr: DvrService;
let app: FastifyInstance;
const T = Math.floor(Date.now() / 60_000) * 60 + 2 * 3600;

beforeAll(async () => {
  temp = createTempLibrary({ externalCheckIntervalMs: 0 });
  const m3u = `${temp.dir}/channels.m3u`;
  const guide = `${temp.dir}/guide.xml`;
  writeM3u(m3u, [{ number: '2', name: 'Two', tvgId: 'two.test', url: 'http://127.0.0.1:9/two' }]);
  writeXmltv(
    guide,
    [['two.test', 'Two']],
    [
      { channel: 'two.test', start: T, stop: T + 1800, title: 'Harbour Lights' },
      { channel: 'two.test', start: T + 1800, stop: T + 3600, title: 'Harbour Master' },
      { channel: 'two.test', start: T + 3600, stop: T + 5400, title: 'Late News' },
    ],
  );
  dvr = createDvr(temp, { sources: [{ kind: 'm3u', location: m3u }], guides: [guide] });
  await dvr.refresh();
  app = await buildDvrApp(temp, dvr);
});

afterAll(async () => {
  await app?.close();
  await dvr?.stop();
  temp?.close();
});

describe('a rule type added to the list alone', () => {
  it('is offered to the app with its form, after the built-in types', async () => {
    const types = (await app.inject({ method: 'GET', url: '/dvr/rule-types' })).json() as {
      type: string;
      fields: unknown[];
    }[];
    expect(types.map((t) => t.type)).toEqual(['series', 'keyword', 'slot', 'program', 'prefix']);
    expect(types.at(-1)).toEqual({
      type: 'prefix',
      label: 'Title start',
      help: 'Every airing whose title begins with these words.',
      records_by_time: false,
      fields: [
        { name: 'prefix', input: 'text', label: 'Title begins with', required: true, min_length: 1, max_length: 100 },
      ],
      summaries: ['Titles beginning “{prefix}”'],
    });
  });

  it('is validated by its schema and planned by its planner', async () => {
    const missing = await app.inject({ method: 'POST', url: '/dvr/rules', payload: { type: 'prefix' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(/prefix/) });
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/dvr/rules',
          payload: { type: 'prefix', prefix: 'Harbour', weekly: true },
        })
      ).statusCode,
    ).toBe(400);
    const made = await app.inject({
      method: 'POST',
      url: '/dvr/rules',
      payload: { type: 'prefix', prefix: 'Harbour', priority: 3 },
    });
    expect(made.statusCode).toBe(201);
    const rule = made.json() as { id: string };
    expect(rule).toEqual({ id: rule.id, type: 'prefix', prefix: 'Harbour', priority: 3 });
    const jobs = listJobs(temp.db).filter((job) => job.id.endsWith(`-${rule.id}`));
    expect(jobs.map((job) => [job.start_time, job.name])).toEqual([
      [T, 'Harbour Lights'],
      [T + 1800, 'Harbour Master'],
    ]);
    const listed = (await app.inject({ method: 'GET', url: '/dvr/rules' })).json() as { type: string }[];
    expect(listed.map((r) => r.type)).toContain('prefix');
  });
});
