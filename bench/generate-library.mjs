/**
 * Generates the bench library through Antenna's own write functions (dist/), each
 * section inside one transaction: 1,000 shows × 50 episodes, 5,000 movies,
 * 200 video groups × 25 videos, 100 collections, 100 playlists × 50 items and
 * 500 recording jobs. Values come from a seeded generator, so every run builds the
 * same library.
 *
 * Usable on its own: `node bench/generate-library.mjs <data dir>` (after `npm run build`).
 */
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const DIST = new URL('../dist/', import.meta.url);

export const SIZES = Object.freeze({
  shows: 1000,
  episodesPerShow: 50,
  movies: 5000,
  videoGroups: 200,
  videosPerGroup: 25,
  collections: 100,
  playlists: 100,
  itemsPerPlaylist: 50,
  jobs: 500,
});

/** Expected `/status` library counts for SIZES. */
export function expectedCounts(sizes = SIZES) {
  return {
    shows: sizes.shows,
    episodes: sizes.shows * sizes.episodesPerShow,
    movies: sizes.movies,
    video_groups: sizes.videoGroups,
    videos: sizes.videoGroups * sizes.videosPerGroup,
    collections: sizes.collections,
    playlists: sizes.playlists,
    jobs: sizes.jobs,
    channels: 0,
  };
}

// Ids, shared with the runner so it can name resources without asking the server.
const pad = (n, width) => String(n).padStart(width, '0');
export const ids = {
  show: (s) => `show-${pad(s, 5)}`,
  episode: (s, e) => `ep-${pad(s, 5)}-${pad(e, 3)}`,
  movie: (m) => `movie-${pad(m, 5)}`,
  videoGroup: (g) => `videos-${((g * 2654435761) >>> 0).toString(16).padStart(8, '0')}${pad(g, 4)}`,
  video: (g, v) => `video-${pad(g, 4)}-${pad(v, 3)}`,
  collection: (c) => `collection-${pad(c, 4)}`,
  playlist: (p) => `playlist-${pad(p, 4)}`,
};

/** mulberry32: small, fast, seedable. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min, max) => min + Math.floor(next() * (max - min + 1));
  const pick = (list) => list[Math.floor(next() * list.length)];
  const some = (list, min, max) => {
    const count = int(min, max);
    const chosen = new Set();
    while (chosen.size < Math.min(count, list.length)) chosen.add(pick(list));
    return [...chosen];
  };
  const chance = (p) => next() < p;
  return { next, int, pick, some, chance };
}

const WORDS = (
  'harbor lantern quiet river midnight garden signal copper winter hollow silver orchard ' +
  'thunder meadow paper falcon ember north glass island shadow canyon velvet station ' +
  'compass harvest marble whisper frontier beacon cedar tide summit echo crimson voyage ' +
  'ledger prairie anchor willow static ribbon lighthouse granite meridian saffron'
).split(' ');
const SENTENCE_WORDS = (
  'the a an of and to in on with after before while when their his her old new last first ' +
  'detective family town crew team city secret case storm night journey plan friend rival ' +
  'discovers returns faces finds learns races tries uncovers hides chooses confronts ' +
  'unexpected dangerous mysterious long missing strange final hidden local old-fashioned'
).split(' ');
const FIRST =
  'Ada Tom Mara Jonas Lena Omar Priya Felix Grace Hugo Iris Kenji Nora Pablo Ruth Sami Tess Victor Wen Yara'.split(' ');
const LAST =
  'Byrne Ellery Okafor Lindqvist Moreau Castillo Nakamura Hart Novak Reyes Duarte Fischer Quinn Sato Varga'.split(' ');
const GENRES = [
  'Drama',
  'Comedy',
  'Crime',
  'Documentary',
  'Reality',
  'Sitcom',
  'Mystery',
  'Science fiction',
  'Adventure',
  'Cooking',
  'News',
  'Animated',
  'Thriller',
  'Romance',
  'Horror',
  'Western',
];
const TAGS = ['HD', 'CC', 'Stereo', 'New', 'Live', 'Subtitled', 'DVS', '5.1'];
const RATINGS_TV = ['TV-G', 'TV-PG', 'TV-14', 'TV-MA'];
const RATINGS_MOVIE = ['G', 'PG', 'PG-13', 'R'];
const CHANNELS = ['2.1', '4.1', '5.1', '7.1', '9.1', '11.1', '13.1', '28.1', '44.1', '62.1'];
const LABELS = ['kids', 'weekend', 'archive', 'to-edit', 'family'];

const DAY = 86_400_000;

function textGen(r) {
  const title = (min, max) =>
    r
      .some(WORDS, min, max)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join(' ');
  const person = () => `${r.pick(FIRST)} ${r.pick(LAST)}`;
  const people = (min, max) => {
    const out = new Set();
    const count = r.int(min, max);
    while (out.size < count) out.add(person());
    return [...out];
  };
  /** Sentences until about `length` characters. */
  const summary = (length) => {
    let text = '';
    while (text.length < length - 20) {
      const words = Array.from({ length: r.int(5, 12) }, () =>
        r.chance(0.25) ? r.pick(WORDS) : r.pick(SENTENCE_WORDS),
      );
      let sentence = words.join(' ');
      const room = length - text.length - 2;
      if (sentence.length > room)
        sentence = sentence.slice(0, sentence.lastIndexOf(' ', room)) || sentence.slice(0, room);
      text += (text ? ' ' : '') + sentence[0].toUpperCase() + sentence.slice(1) + '.';
    }
    return text;
  };
  const isoDate = (ms) => new Date(ms).toISOString().slice(0, 10);
  return { title, person, people, summary, isoDate };
}

async function loadStore() {
  const [database, parents, items, collections, jobs] = await Promise.all([
    import(new URL('db/database.js', DIST)),
    import(new URL('repositories/parents.repository.js', DIST)),
    import(new URL('repositories/items.repository.js', DIST)),
    import(new URL('repositories/collections.repository.js', DIST)),
    import(new URL('repositories/jobs.repository.js', DIST)),
  ]);
  return { ...database, ...parents, ...items, ...collections, ...jobs };
}

/**
 * Builds the library in `dataDir` (which must not hold a database yet).
 * `now` fixes the time base; returns the counts written and how long it took.
 */
export async function generateLibrary(dataDir, { sizes = SIZES, seed = 20240611, now = Date.now() } = {}) {
  const store = await loadStore();
  store.prepareDataDir(dataDir);
  const file = store.databasePath(dataDir);
  if (existsSync(file)) throw new Error(`${file} already exists; generate into an empty directory.`);
  const db = store.openDatabase(file);
  const r = rng(seed);
  const t = textGen(r);
  const started = performance.now();
  const inTransaction = (fn) => db.transaction(fn)();

  try {
    // Shows and their episodes: 2 transactions per 100 shows keeps each one a few MB.
    const showNames = [];
    for (let s = 1; s <= sizes.shows; s++) showNames[s] = `${t.title(1, 3)} ${s}`;
    const chunk = 100;
    for (let first = 1; first <= sizes.shows; first += chunk) {
      inTransaction(() => {
        for (let s = first; s < first + chunk && s <= sizes.shows; s++) writeShow(s);
      });
    }

    function writeShow(s) {
      const showId = ids.show(s);
      const name = showNames[s];
      const genres = r.some(GENRES, 1, 3);
      const cast = t.people(4, 8);
      const year = r.int(1975, 2024);
      const premiere = Date.UTC(year, r.int(0, 11), r.int(1, 28));
      const recorded = r.chance(0.6);
      const showCreated = now - r.int(200, 1500) * DAY;
      store.upsertShow(db, {
        id: showId,
        name,
        summary: t.summary(r.int(180, 240)),
        image_url: `/images/shows/${showId}.jpg`,
        release_year: year,
        release_date: t.isoDate(premiere),
        genres,
        categories: ['Series'],
        labels: r.chance(0.1) ? r.some(LABELS, 1, 2) : null,
        cast,
        favorited: r.chance(0.1),
        created_at: showCreated,
      });
      const seasons = Math.max(1, Math.round(sizes.episodesPerShow / r.int(8, 25)));
      const perSeason = Math.ceil(sizes.episodesPerShow / seasons);
      const channel = r.pick(CHANNELS);
      for (let e = 1; e <= sizes.episodesPerShow; e++) {
        const season = Math.ceil(e / perSeason);
        const number = e - (season - 1) * perSeason;
        const id = ids.episode(s, e);
        const source = recorded && r.chance(0.85) ? 'recordings' : 'imports';
        const episodeTitle = t.title(2, 4);
        const aired = premiere + (season - 1) * 365 * DAY + (number - 1) * 7 * DAY;
        const duration =
          source === 'recordings'
            ? r.pick([1800, 3600]) + r.int(0, 120)
            : r.int(1280, 3500) + Math.round(r.next() * 1000) / 1000;
        const watched = r.chance(0.4);
        const createdAt = showCreated + r.int(0, 190) * DAY + r.int(0, DAY - 1);
        const recordedFile = `TV/${name}/Season ${pad(season, 2)}/${name} S${pad(season, 2)}E${pad(number, 2)} ${t.isoDate(aired)} ${episodeTitle}.mpg`;
        store.upsertEpisode(db, {
          id,
          show_id: showId,
          source,
          program_id: `EP${pad(s, 6)}${pad(e, 4)}`,
          path: source === 'recordings' ? recordedFile : recordedFile.replace(/\.mpg$/, '.mkv'),
          channel: source === 'recordings' ? channel : null,
          season_number: season,
          episode_number: number,
          episode_title: episodeTitle,
          summary: t.summary(r.int(170, 230)),
          content_rating: r.pick(RATINGS_TV),
          image_url: `/images/episodes/${id}.jpg`,
          thumbnail_url: source === 'recordings' ? `/images/thumbnails/${id}.jpg` : null,
          duration,
          playback_time: watched ? duration : r.chance(0.1) ? r.int(60, 900) : 0,
          original_air_date: t.isoDate(aired),
          genres,
          tags: r.some(TAGS, 1, 3),
          categories: ['Episode'],
          cast: cast.slice(0, r.int(3, cast.length)),
          directors: [t.person()],
          labels: r.chance(0.05) ? r.some(LABELS, 1, 1) : null,
          commercials:
            source === 'recordings'
              ? Array.from({ length: 6 }, (_, i) => Math.round((i + 1) * (duration / 7) * 10) / 10)
              : null,
          watched,
          favorited: r.chance(0.05),
          completed: true,
          processed: true,
          verified: source === 'recordings' && r.chance(0.3),
          last_watched_at: watched ? createdAt + r.int(1, 60) * DAY : null,
          created_at: createdAt,
        });
      }
    }

    inTransaction(() => {
      for (let m = 1; m <= sizes.movies; m++) {
        const id = ids.movie(m);
        const title = `${t.title(1, 4)} ${m}`;
        const year = r.int(1940, 2024);
        const source = r.chance(0.3) ? 'recordings' : 'imports';
        const duration = r.int(4800, 9600) + Math.round(r.next() * 1000) / 1000;
        const watched = r.chance(0.35);
        const createdAt = now - r.int(1, 1500) * DAY - r.int(0, DAY - 1);
        store.upsertMovie(db, {
          id,
          source,
          title,
          program_id: `MV${pad(m, 8)}`,
          path: `Movies/${title} (${year}).${source === 'recordings' ? 'mpg' : 'mkv'}`,
          channel: source === 'recordings' ? r.pick(CHANNELS) : null,
          summary: t.summary(r.int(180, 240)),
          content_rating: r.pick(RATINGS_MOVIE),
          image_url: `/images/movies/${id}.jpg`,
          duration,
          playback_time: watched ? duration : 0,
          release_year: year,
          release_date: `${year}-${pad(r.int(1, 12), 2)}-${pad(r.int(1, 28), 2)}`,
          genres: r.some(GENRES, 1, 3),
          tags: r.some(TAGS, 0, 2),
          categories: ['Movie'],
          cast: t.people(3, 8),
          directors: t.people(1, 2),
          watched,
          favorited: r.chance(0.08),
          completed: true,
          processed: true,
          last_watched_at: watched ? createdAt + r.int(1, 30) * DAY : null,
          created_at: createdAt,
        });
      }
    });

    inTransaction(() => {
      for (let g = 1; g <= sizes.videoGroups; g++) {
        const groupId = ids.videoGroup(g);
        const name = `${t.title(1, 3)} Videos ${g}`;
        const created = now - r.int(10, 900) * DAY;
        store.upsertVideoGroup(db, {
          id: groupId,
          name,
          summary: r.chance(0.5) ? t.summary(r.int(80, 200)) : null,
          image_url: `/images/video_groups/${groupId}.jpg`,
          genres: r.chance(0.5) ? r.some(GENRES, 1, 2) : null,
          categories: ['internet video'],
          favorited: r.chance(0.05),
          created_at: created,
        });
        for (let v = 1; v <= sizes.videosPerGroup; v++) {
          const id = ids.video(g, v);
          const title = t.title(2, 5);
          const watched = r.chance(0.3);
          const createdAt = created + r.int(0, 60) * DAY;
          const duration = r.int(30, 2400) + Math.round(r.next() * 1000) / 1000;
          store.upsertVideo(db, {
            id,
            video_group_id: groupId,
            source: 'imports',
            path: `Videos/${name}/${title}.mp4`,
            video_title: title,
            season_number: r.chance(0.3) ? 1 : null,
            episode_number: r.chance(0.3) ? v : null,
            summary: t.summary(r.int(100, 220)),
            image_url: `/images/videos/${id}.jpg`,
            duration,
            playback_time: watched ? duration : 0,
            original_air_date: t.isoDate(createdAt - r.int(0, 400) * DAY),
            tags: r.some(TAGS, 0, 2),
            watched,
            favorited: r.chance(0.05),
            completed: true,
            processed: true,
            last_watched_at: watched ? createdAt + DAY : null,
            created_at: createdAt,
          });
        }
      }
    });

    inTransaction(() => {
      for (let c = 1; c <= sizes.collections; c++) {
        const id = ids.collection(c);
        const shows = c % 2 === 0;
        store.upsertCollection(db, {
          id,
          collection_type: shows ? 'shows' : 'movies',
          name: `${t.title(1, 3)} ${shows ? 'Series' : 'Films'} ${c}`,
          image_url: `/images/collections/${id}.jpg`,
          labels: r.chance(0.2) ? r.some(LABELS, 1, 2) : null,
          created_at: now - r.int(1, 500) * DAY,
        });
        const members = new Set();
        while (members.size < (shows ? 10 : 20)) {
          members.add(shows ? ids.show(r.int(1, sizes.shows)) : ids.movie(r.int(1, sizes.movies)));
        }
        for (const member of members) store.addCollectionMember(db, id, member);
      }
    });

    inTransaction(() => {
      for (let p = 1; p <= sizes.playlists; p++) {
        const id = ids.playlist(p);
        store.upsertPlaylist(db, {
          id,
          name: `${t.title(1, 3)} Mix ${p}`,
          labels: r.chance(0.2) ? r.some(LABELS, 1, 2) : null,
          created_at: now - r.int(1, 300) * DAY,
        });
        const itemIds = Array.from({ length: sizes.itemsPerPlaylist }, () => {
          const kind = r.next();
          if (kind < 0.6) return ids.episode(r.int(1, sizes.shows), r.int(1, sizes.episodesPerShow));
          if (kind < 0.85) return ids.movie(r.int(1, sizes.movies));
          return ids.video(r.int(1, sizes.videoGroups), r.int(1, sizes.videosPerGroup));
        });
        store.setPlaylistItems(db, id, itemIds);
      }
    });

    inTransaction(() => {
      // Upcoming airings over the next ~10 days, on a handful of channels.
      const firstSlot = Math.ceil(now / 1000 / 1800) * 1800;
      for (let j = 0; j < sizes.jobs; j++) {
        const s = r.int(1, sizes.shows);
        const ruleId = r.int(1, 400);
        const start = firstSlot + j * 1800 + r.int(0, 3) * 60;
        const length = r.pick([1800, 3600]);
        const channel = r.pick(CHANNELS);
        const season = r.int(1, 8);
        const episode = r.int(1, 24);
        store.upsertJob(db, {
          id: `${start}-${ruleId}`,
          name: showNames[s],
          start_time: start,
          end_time: start + length,
          channels: [channel, ...(r.chance(0.3) ? [r.pick(CHANNELS)] : [])].filter((c, i, all) => all.indexOf(c) === i),
          channel,
          skipped: r.chance(0.05),
          failed: false,
          // Library data for interface A: the DVR plans and starts only its own 'scheduled' jobs.
          state: 'finished',
          item: {
            show_id: ids.show(s),
            title: showNames[s],
            episode_title: t.title(2, 4),
            season_number: season,
            episode_number: episode,
          },
        });
      }
    });
  } finally {
    db.close();
  }
  return { counts: expectedCounts(sizes), ms: performance.now() - started };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node bench/generate-library.mjs <data dir>');
    process.exit(2);
  }
  const target = resolve(dir);
  if (process.argv.includes('--force')) rmSync(target, { recursive: true, force: true });
  const { counts, ms } = await generateLibrary(target);
  console.log(`generated ${JSON.stringify(counts)} into ${target} in ${(ms / 1000).toFixed(1)} s`);
}
