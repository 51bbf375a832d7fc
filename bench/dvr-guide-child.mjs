/**
 * Run by bench/dvr.mjs in its own process: imports a 500-channel × 14-day XMLTV guide
 * through Antenna's built DvrSourcesService, then plans jobs for 200 rules over it,
 * and sends back the times and this process's peak RSS.
 */
import { closeSync, createReadStream, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { databasePath, openDatabase, prepareDataDir } from '../dist/db/database.js';
import { DvrService } from '../dist/dvr/dvr.service.js';
import { guideIdFor, sourceIdFor } from '../dist/dvr/sources/dvr-sources.service.js';
import { iterateProgrammes } from '../dist/repositories/guide.repository.js';
import { listJobs } from '../dist/repositories/jobs.repository.js';
import { insertRule } from '../dist/repositories/rules.repository.js';
import { parseXmltv } from '../dist/dvr/sources/xmltv/xmltv.parser.js';
import { xmltvDocument } from '../dist/dvr/lineup/lineup-export.js';
import { writeGuide } from './generate-guide.mjs';

const peakRss = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

const work = process.argv[2];
const guidePath = join(work, 'guide.xml');
const { programmes, bytes } = await writeGuide(guidePath, { channels: 500, days: 14 });

// The ceiling: the same file through the parser alone, collecting what the rules will ask for.
const channels = new Set();
const titles = new Map();
const airings = [];
let started = performance.now();
await parseXmltv(createReadStream(guidePath), {
  channel: (c) => channels.add(c.id),
  programme: (p) => {
    titles.set(p.title, (titles.get(p.title) ?? 0) + 1);
    if (airings.length < 5000 && p.start > Date.now() / 1000 + 86400) airings.push([p.channel, p.start]);
  },
});
const parseMs = performance.now() - started;

const m3u = join(work, 'channels.m3u');
const ids = [...channels];
writeFileSync(
  m3u,
  [
    '#EXTM3U',
    ...ids.map(
      (id, i) => `#EXTINF:-1 tvg-id="${id}" tvg-chno="${i + 1}",Channel ${i + 1}\nhttp://127.0.0.1:9/${i + 1}`,
    ),
  ].join('\n'),
);
const numberOf = new Map(ids.map((id, i) => [id, String(i + 1)]));

const data = join(work, 'data');
prepareDataDir(data);
const db = openDatabase(databasePath(data));
const dvr = new DvrService(db, {
  recordingsDir: join(data, 'recordings'),
  thumbnailsDir: join(data, 'thumbnails'),
  workDir: join(data, 'work'),
  sources: { sources: [{ kind: 'm3u', location: m3u, streams: 4 }], guides: [guidePath] },
  refreshInterval: 0,
  comskip: false,
});
await dvr.sources.refreshSource(sourceIdFor('m3u', m3u));
started = performance.now();
const result = await dvr.sources.refreshGuide(guideIdFor(guidePath));
const importMs = performance.now() - started;
if (result.error) throw new Error(result.error);
const importRss = peakRss();

// 200 rules as a household might set them up: 120 series picked across the guide's
// titles (every k-th title in name order, not the most aired), 50 keywords that are
// distinctive (each in at most three titles, like "Hitchcock" or "Winter Olympics": the
// generated guide has a small vocabulary, so they are two-word phrases from titles),
// 20 weekly time slots and 10 single programmes.
const allTitles = [...titles.keys()].sort();
const step = Math.max(1, Math.floor(allTitles.length / 120));
const titlesOf = new Map();
for (const title of allTitles) {
  const words = title.toLowerCase().split(/\s+/);
  const phrases = new Set(words.slice(1).map((word, i) => `${words[i]} ${word}`));
  for (const phrase of phrases) titlesOf.set(phrase, (titlesOf.get(phrase) ?? 0) + 1);
}
const distinctive = [...titlesOf.entries()]
  .filter(([phrase, n]) => n <= 3 && /^[a-z]+ [a-z]+$/.test(phrase))
  .map(([phrase]) => phrase)
  .sort();
if (distinctive.length < 50) throw new Error(`only ${distinctive.length} distinctive phrases in the guide`);
const tomorrow = Math.floor(Date.now() / 1000) + 86400;
for (let i = 0; i < 120; i++)
  insertRule(db, { type: 'series', title: allTitles[(i * step) % allTitles.length], keep: 5 });
for (let i = 0; i < 50; i++)
  insertRule(db, { type: 'keyword', keyword: distinctive[(i * 7) % distinctive.length], new_only: true });
for (let i = 0; i < 20; i++)
  insertRule(db, {
    type: 'slot',
    channel: String(1 + i * 20),
    start_time: tomorrow + i * 3600,
    duration: 3600,
    weekly: true,
  });
for (let i = 0; i < 10; i++) {
  const [channel, start] = airings[i * 50];
  insertRule(db, { type: 'program', channel: numberOf.get(channel), start_time: start });
}

started = performance.now();
let rows = 0;
for (const _ of iterateProgrammes(db, Math.floor(Date.now() / 1000))) rows++;
const scanMs = performance.now() - started;
started = performance.now();
dvr.schedule.replan();
const planMs = performance.now() - started;
const jobs = listJobs(db).length;

// One rule's edit at a time, as a user makes them (each re-plans: the guide read for that
// rule alone, every rule's candidates placed again, the differences stored).
const rules = dvr.rules.list();
const ofType = (type) => rules.filter((rule) => rule.definition.type === type);
const edits = [];
const timed = (what, edit) => {
  const at = performance.now();
  edit();
  edits.push({ what, ms: performance.now() - at });
};
for (let i = 0; i < 4; i++) {
  const series = ofType('series')[i * 7];
  timed('series: another title', () =>
    dvr.rules.replace(series.id, { ...series.definition, title: allTitles[(i * 11 + 5) % allTitles.length] }),
  );
  const keyword = ofType('keyword')[i * 5];
  timed('keyword: another phrase', () =>
    dvr.rules.replace(keyword.id, { ...keyword.definition, keyword: distinctive[(i * 13 + 3) % distinctive.length] }),
  );
  timed('series: paused', () => dvr.rules.replace(series.id, { ...series.definition, paused: true }));
  const [channel, start] = airings[i * 50 + 25];
  timed('program: new rule', () =>
    dvr.rules.create({ type: 'program', channel: numberOf.get(channel), start_time: start }),
  );
  timed('slot: removed', () => dvr.rules.delete(ofType('slot')[i].id));
}
const editMs = edits.map((edit) => edit.ms).sort((a, b) => a - b);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const editKinds = Object.fromEntries(
  [...new Set(edits.map((edit) => edit.what))].map((what) => [
    what,
    median(edits.filter((e) => e.what === what).map((e) => e.ms)),
  ]),
);
// The least a keyword's edit must read: every title and summary, searched by SQLite itself in one pass over the table
// (no planning, no JavaScript per row).
const likeMs = median(
  [0, 1, 2].map((i) => {
    const at = performance.now();
    db.prepare("SELECT count(*) FROM programmes WHERE title LIKE ? ESCAPE '\\' OR summary LIKE ? ESCAPE '\\'")
      .pluck()
      .get(`%${distinctive[i]}%`, `%${distinctive[i]}%`);
    return performance.now() - at;
  }),
);
// The guide exported as XMLTV (GET /devices/ANY/guide/xmltv), all of it, encoded as it is sent; beside it, a file
// of the same bytes read through a stream (written by a first, untimed pass).
const exportFile = join(work, 'exported.xml');
const exportFd = openSync(exportFile, 'w');
for (const piece of xmltvDocument(dvr.lineup.channels(), dvr.lineup.programmes(14 * 86400))) writeSync(exportFd, piece);
closeSync(exportFd);
const exportRuns = [0, 1, 2].map(() => {
  const at = performance.now();
  let bytes = 0;
  for (const piece of xmltvDocument(dvr.lineup.channels(), dvr.lineup.programmes(14 * 86400)))
    bytes += Buffer.from(piece).length;
  return { bytes, ms: performance.now() - at };
});
const fileReadMs = [];
for (let i = 0; i < 3; i++) {
  const at = performance.now();
  for await (const chunk of createReadStream(exportFile, { highWaterMark: 64 * 1024 })) void chunk;
  fileReadMs.push(performance.now() - at);
}
const exportBytes = exportRuns[0].bytes;
const exportMs = median(exportRuns.map((r) => r.ms));
await dvr.stop();
db.close();
process.send(
  {
    programmes,
    bytes,
    stored: rows,
    parseMs,
    importMs,
    peakRss: importRss,
    planMs,
    scanMs,
    jobs,
    rules: 200,
    keywordExample: distinctive[0],
    edits: edits.length,
    editMedianMs: editMs[Math.floor(editMs.length / 2)],
    editMaxMs: editMs.at(-1),
    slowestEdit: edits.reduce((a, b) => (b.ms > a.ms ? b : a)).what,
    editKinds,
    likeMs,
    exportBytes,
    exportMs,
    exportFileMs: median(fileReadMs),
  },
  () => process.exit(0),
);
