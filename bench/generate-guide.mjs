/**
 * Writes a realistic XMLTV guide for the DVR benchmarks and tests: `channels` channels
 * × `days` days of back-to-back programmes (30- and 60-minute episodes of a few
 * thousand series, 90-minute movies), so 500 × 14 gives about 200,000 programmes and
 * about 90 MB. Values come from a seeded generator, so the same arguments write the
 * same file. The file is streamed to disk in 64 KiB pieces: memory does not grow with
 * the guide.
 *
 * Usable on its own: `node bench/generate-guide.mjs out.xml[.gz] [channels] [days]`.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { createGzip } from 'node:zlib';

const FLUSH_AT = 64 * 1024;

/** mulberry32: small, fast, seedable. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A few accented words and an ampersand so the parser meets multi-byte UTF-8 and entities.
const WORDS = (
  'harbor silent kitchen masters river night city lights garden mystery island café ' +
  'north signal engine family doctor court street fire station west coast hidden valley ' +
  'über tales detective forest winter summer journey stars desert storm bridge secret ' +
  'niño history wild ocean diary crown empire frontier factory legacy shadow mountain ' +
  'market wheels farm house rescue patrol squad academy lab files cold case treasure hunt ' +
  'home & away love & war bakery heroes science planet chronicles dawn midnight'
).split(' ');
const CATEGORIES = [
  'Drama',
  'Comedy',
  'News',
  'Sports',
  'Reality',
  'Documentary',
  'Children',
  'Crime',
  'Talk',
  'Cooking',
  'Travel',
  'Science fiction',
  'Game show',
  'Music',
];
const RATINGS = ['TV-G', 'TV-PG', 'TV-14', 'TV-MA'];
const CALL_SIGNS = 'KABCDEFGHIJLMNOPQRSTUVWXYZ';

const pad = (n, width) => String(n).padStart(width, '0');
const escapeXml = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);

function phrase(random, min, max) {
  const count = min + Math.floor(random() * (max - min + 1));
  const words = [];
  for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(random() * WORDS.length)]);
  return words.map(capitalize).join(' ');
}

function sentence(random, length) {
  let text = '';
  while (text.length < length) text += `${text ? ' ' : ''}${WORDS[Math.floor(random() * WORDS.length)]}`;
  return `${capitalize(text)}.`;
}

/** The series and movie pools: fixed titles, Gracenote-style ids and categories. */
function makePools(random) {
  const series = [];
  for (let i = 0; i < 3000; i++) {
    series.push({
      title: escapeXml(`${phrase(random, 1, 3)}${i % 7 === 0 ? ` ${i}` : ''}`),
      root: pad(10_000_000 + i * 37, 8),
      minutes: random() < 0.553 ? 30 : 60,
      categories:
        i % 2
          ? [CATEGORIES[i % CATEGORIES.length]]
          : [CATEGORIES[i % CATEGORIES.length], CATEGORIES[(i * 5 + 3) % CATEGORIES.length]],
      seasons: 1 + Math.floor(random() * 12),
      firstYear: 1990 + Math.floor(random() * 34),
    });
  }
  const movies = [];
  for (let i = 0; i < 1500; i++) {
    movies.push({
      title: escapeXml(phrase(random, 1, 4)),
      root: pad(20_000_000 + i * 53, 8),
      year: 1950 + Math.floor(random() * 74),
    });
  }
  return { series, movies };
}

/** XMLTV time: 'YYYYMMDDhhmmss +hhmm', shown in the channel's offset. */
function xmltvTime(epochSeconds, offsetMinutes) {
  const d = new Date((epochSeconds + offsetMinutes * 60) * 1000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}00 ${sign}${pad(Math.floor(abs / 60), 2)}${pad(abs % 60, 2)}`;
}

function channelXml(c, random) {
  const number = c % 9 === 0 ? `${2 + (c % 60)}.${1 + (c % 4)}` : String(c + 2);
  const callSign = `K${CALL_SIGNS[c % 26]}${CALL_SIGNS[(c * 7) % 26]}${CALL_SIGNS[(c * 11) % 26]}`;
  const icon = random() < 0.8 ? `\n    <icon src="https://img.example/logos/${callSign.toLowerCase()}.png" />` : '';
  return `  <channel id="ch${c}.example">\n    <display-name>${number} ${callSign}</display-name>\n    <display-name>${number}</display-name>\n    <display-name>${callSign}</display-name>${icon}\n  </channel>\n`;
}

function movieXml(movie, random) {
  const credits =
    random() < 0.5
      ? `  <credits><director>${escapeXml(phrase(random, 2, 2))}</director><actor>${escapeXml(phrase(random, 2, 2))}</actor></credits>\n`
      : '';
  return (
    `  <title lang="en">${movie.title}</title>\n` +
    `  <desc>${escapeXml(sentence(random, 110 + Math.floor(random() * 40)))}</desc>\n` +
    credits +
    `  <date>${movie.year}</date>\n` +
    '  <category>Movie</category>\n' +
    `  <icon src="https://img.example/p/MV${movie.root}.jpg"/>\n` +
    `  <episode-num system="dd_progid">MV${movie.root}.0000</episode-num>\n` +
    `  <rating system="MPAA"><value>${['G', 'PG', 'PG-13', 'R'][Math.floor(random() * 4)]}</value></rating>\n`
  );
}

function episodeXml(show, random) {
  const season = 1 + Math.floor(random() * show.seasons);
  const episode = 1 + Math.floor(random() * 22);
  const aired = `${Math.min(2024, show.firstYear + season - 1)}${pad(1 + Math.floor(random() * 12), 2)}${pad(1 + Math.floor(random() * 28), 2)}`;
  const isNew = random() < 0.2;
  const rating =
    random() < 0.3
      ? `  <rating system="VCHIP"><value>${RATINGS[Math.floor(random() * RATINGS.length)]}</value></rating>\n`
      : '';
  const second = show.categories[1] ? `  <category>${show.categories[1]}</category>\n` : '';
  return (
    `  <title lang="en">${show.title}</title>\n` +
    `  <sub-title>${escapeXml(phrase(random, 1, 3))}</sub-title>\n` +
    `  <desc>${escapeXml(sentence(random, 110 + Math.floor(random() * 40)))}</desc>\n` +
    `  <date>${aired}</date>\n` +
    `  <category>${show.categories[0]}</category>\n${second}` +
    `  <episode-num system="xmltv_ns">${season - 1}.${episode - 1}.</episode-num>\n` +
    `  <episode-num system="dd_progid">EP${show.root}.${pad(season * 100 + episode, 4)}</episode-num>\n` +
    (isNew ? '  <new/>\n' : random() < 0.5 ? '  <previously-shown/>\n' : '') +
    rating
  );
}

/** Writes text to the stream, waiting when it asks us to (backpressure). */
function makeWriter(stream) {
  let pending = '';
  let xmlBytes = 0;
  const flush = async () => {
    if (pending === '') return;
    const buffer = Buffer.from(pending, 'utf8');
    pending = '';
    xmlBytes += buffer.length;
    if (!stream.write(buffer)) await once(stream, 'drain');
  };
  return {
    async write(text) {
      pending += text;
      if (pending.length >= FLUSH_AT) await flush();
    },
    flush,
    bytes: () => xmlBytes,
  };
}

/**
 * Writes the guide to `path`. `start` (epoch seconds or a Date) defaults to now rounded
 * down to the hour. Returns the programme count, the bytes on disk (`bytes`, gzipped
 * when `gzip`) and the uncompressed XML bytes (`xmlBytes`).
 */
export async function writeGuide(
  path,
  { channels = 500, days = 14, start = Math.floor(Date.now() / 3_600_000) * 3600, gzip = false, seed = 20240301 } = {},
) {
  const startSeconds = start instanceof Date ? Math.floor(start.getTime() / 1000) : start;
  const end = startSeconds + days * 86_400;
  const random = rng(seed);
  const { series, movies } = makePools(random);
  const file = createWriteStream(path);
  const gzipper = gzip ? createGzip({ level: 6 }) : undefined;
  if (gzipper) gzipper.pipe(file);
  const writer = makeWriter(gzipper ?? file);
  let programmes = 0;

  await writer.write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n<tv source-info-name="Antenna bench" generator-info-name="generate-guide.mjs">\n',
  );
  for (let c = 0; c < channels; c++) await writer.write(channelXml(c, random));
  for (let c = 0; c < channels; c++) {
    // Most channels list UTC times; some their local offset, as merged guides do.
    const offset = c % 5 === 4 ? -300 : 0;
    for (let t = startSeconds; t < end; programmes++) {
      const isMovie = random() < 0.15;
      const show = isMovie ? undefined : series[Math.floor(random() * series.length)];
      const stop = t + (isMovie ? 90 : show.minutes) * 60;
      const body = isMovie ? movieXml(movies[Math.floor(random() * movies.length)], random) : episodeXml(show, random);
      await writer.write(
        `<programme start="${xmltvTime(t, offset)}" stop="${xmltvTime(stop, offset)}" channel="ch${c}.example">\n${body}</programme>\n`,
      );
      t = stop;
    }
  }
  await writer.write('</tv>\n');
  await writer.flush();
  const done = once(file, 'finish');
  (gzipper ?? file).end();
  await done;
  return { programmes, bytes: (await stat(path)).size, xmlBytes: writer.bytes() };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [out, channels, days] = process.argv.slice(2);
  if (!out) {
    console.error('usage: node bench/generate-guide.mjs out.xml[.gz] [channels=500] [days=14]');
    process.exit(2);
  }
  const began = performance.now();
  const result = await writeGuide(out, {
    channels: channels ? Number(channels) : undefined,
    days: days ? Number(days) : undefined,
    gzip: out.endsWith('.gz'),
  });
  const seconds = (performance.now() - began) / 1000;
  console.log(
    `${out}: ${result.programmes} programmes, ${(result.xmlBytes / 1e6).toFixed(1)} MB XML, ${(result.bytes / 1e6).toFixed(1)} MB on disk, ${seconds.toFixed(1)} s`,
  );
}
