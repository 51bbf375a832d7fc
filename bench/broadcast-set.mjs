/**
 * A labelled test set for commercial detection (issue 40): "broadcasts" made by ffmpeg from
 * lavfi sources only (no downloads, the same bytes every time), MPEG-2 video and MP2 audio in
 * MPEG-TS at 320x240, 25 fps, as a DVR records them, each with its true breaks in seconds.
 *
 * Made the way broadcasts mark them, and not trivially easy:
 * - the programme carries a station logo (a static box in the top right corner) that the ads lack;
 * - acts are scenes of different moving pictures cut together, 70 to 190 s long, ending and
 *   starting with a half-second fade;
 * - a break is 2 to 4 spots of 15 or 30 s (black to black), louder than the programme, some of
 *   them letterboxed (16:9 inside the 4:3 frame), with 12 frames of black and silence between
 *   spots and at the break's edges;
 * - traps that are programme: a fade to black and silence inside an act, a quiet scene, a
 *   letterboxed film and a recording that starts or ends inside a break.
 *
 * Also the scoring (`scoreDetection`, bench/commercial-score.mjs): how many ad seconds a detection
 * skips and how many programme seconds it skips by mistake. Typed for the tests by
 * test/support/broadcast-set.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const W = 320;
const H = 240;
const RATE = 25;
const FRAME = 1 / RATE;
/** Black and silence between spots and at a break's edges: 12 frames. */
const SEPARATOR = 12 * FRAME;
const FADE = 0.5;
/** Bump when the recipe changes, so a cached set is made again. */
const VERSION = 1;

// Programme pictures: moving, deterministic (cellauto, life and sierpinski are given seeds).
const SCENES = {
  pattern: `testsrc2=size=${W}x${H}:rate=${RATE}`,
  counter: `testsrc=size=${W}x${H}:rate=${RATE},hue=h=40`,
  cells: `cellauto=size=${W}x${H}:rate=${RATE}:seed=11:rule=110,negate,hue=s=0`,
  fractal: `sierpinski=size=${W}x${H}:rate=${RATE}:seed=3:type=triangle`,
  sky: `gradients=size=${W}x${H}:rate=${RATE}:seed=5:speed=0.02:c0=0x203040:c1=0x6080a0:c2=0x405020`,
  life: `life=size=${W}x${H}:rate=${RATE}:seed=7:mold=10:ratio=0.3:life_color=0xffcc88:death_color=0x224466`,
};

// Ad pictures: bright, saturated, each unlike the programme's.
const ADS = [
  `smptebars=size=${W}x${H}:rate=${RATE}`,
  `rgbtestsrc=size=${W}x${H}:rate=${RATE}`,
  `testsrc2=size=${W}x${H}:rate=${RATE},hue=h=t*45:s=2`,
  `gradients=size=${W}x${H}:rate=${RATE}:seed=21:speed=0.08:c0=0xff2020:c1=0xffff00`,
  `cellauto=size=${W}x${H}:rate=${RATE}:seed=31:rule=30,hue=h=200:s=3`,
  `testsrc=size=${W}x${H}:rate=${RATE},hue=h=t*90`,
  `sierpinski=size=${W}x${H}:rate=${RATE}:seed=9:type=carpet,hue=h=120:s=4`,
];

/** A speaking voice, roughly: a tone whose loudness comes and goes (about -20 dBFS; sine alone is -18). */
const voice = (hz, gain = 1.4) => `sine=frequency=${hz}:sample_rate=48000,volume=${gain},tremolo=f=2.3:d=0.6`;
/** A jingle, loud (about -10 dBFS RMS): a tone with a beep every second, pulsing with a beat. */
const jingle = (hz) => `sine=frequency=${hz}:beep_factor=2:sample_rate=48000,volume=4,tremolo=f=4:d=0.3`;
/** Loud pink noise (about -16 dBFS RMS), for the spots that are not jingles. */
const loudNoise = (seed) => `anoisesrc=color=pink:amplitude=0.45:seed=${seed}:r=48000`;

// ---------------------------------------------------------------- the recipe

/** A programme scene. `quiet`: almost silent (-40 dBFS), `letterbox`: a 16:9 film. */
const scene = (picture, seconds, options = {}) => ({ kind: 'scene', picture, seconds, ...options });
/** A fade to black and silence inside an act (programme, not a break). */
const fadeTrap = (seconds = 0.6) => ({ kind: 'trap', seconds });
const act = (...scenes) => ({ kind: 'act', scenes });
/** A break of spots, each `seconds` long from the start of its leading black to the next black. */
const brk = (...spots) => ({ kind: 'break', spots });

export const BROADCASTS = [
  {
    name: 'drama',
    items: [
      act(scene('pattern', 70), fadeTrap(), scene('life', 80)),
      brk(30, 30, 15),
      act(scene('counter', 60), scene('pattern', 20, { quiet: true }), scene('sky', 90)),
      brk(30, 15, 15, 30),
      act(scene('fractal', 75)),
      brk(15, 30),
      act(scene('pattern', 110), scene('cells', 60)),
      brk(30, 30),
      act(scene('counter', 95)),
    ],
  },
  {
    name: 'news',
    items: [
      act(scene('counter', 120), scene('sky', 40)),
      brk(15, 15, 30),
      act(scene('pattern', 50), fadeTrap(0.8), scene('counter', 40)),
      brk(30, 30, 30),
      act(scene('sky', 60), scene('counter', 30, { quiet: true }), scene('pattern', 40)),
      brk(30, 15),
      act(scene('cells', 80)),
      brk(15, 30, 15),
      act(scene('counter', 130)),
    ],
  },
  {
    // The recording starts during the previous programme's last break.
    name: 'late-start',
    items: [
      brk(30, 15),
      act(scene('fractal', 90), scene('pattern', 80)),
      brk(30, 30, 15, 15),
      act(scene('life', 70), fadeTrap(), scene('counter', 60)),
      brk(15, 30),
      act(scene('sky', 150)),
      brk(30, 30),
      act(scene('pattern', 100)),
    ],
  },
  {
    // A 16:9 film on a 4:3 channel: the programme is letterboxed, the ads (mostly) are not.
    name: 'film',
    letterbox: true,
    items: [
      act(scene('sky', 100), scene('fractal', 90)),
      brk(30, 30, 30),
      act(scene('pattern', 80), scene('life', 20, { quiet: true }), scene('counter', 60)),
      brk(15, 15, 30, 30),
      act(scene('cells', 70), fadeTrap(), scene('sky', 50)),
      brk(30, 15),
      act(scene('counter', 100)),
      brk(30, 30),
      act(scene('pattern', 90)),
    ],
  },
  {
    // A shorter film (the e2e test's): its first break is a busy spot that reads as logo and one other.
    name: 'film-short',
    letterbox: true,
    firstAd: 11,
    items: [
      act(scene('sky', 80), fadeTrap(), scene('fractal', 50)),
      brk(30, 15),
      act(scene('counter', 70), scene('pattern', 20, { quiet: true }), scene('cells', 60)),
      brk(15, 30, 30),
      act(scene('pattern', 90)),
    ],
  },
  {
    // The recording ends inside a break (the padding after the programme).
    name: 'early-end',
    items: [
      act(scene('pattern', 140)),
      brk(30, 15, 30),
      act(scene('counter', 75), scene('cells', 40)),
      brk(15, 15),
      act(scene('sky', 60), fadeTrap(), scene('pattern', 45, { quiet: true }), scene('fractal', 40)),
      brk(30, 30, 15),
      act(scene('life', 110)),
      brk(30, 15),
    ],
  },
];

// ---------------------------------------------------------------- segments and labels

const LOGO =
  'drawbox=x=iw-50:y=16:w=34:h=22:color=white@0.75:t=fill,drawbox=x=iw-44:y=21:w=22:h=12:color=0x1040a0:t=fill';
const LOGO_IN_FILM = LOGO.replaceAll('y=16', 'y=40').replaceAll('y=21', 'y=45');
const LETTERBOX = `scale=${W}:${(H * 3) / 4},pad=${W}:${H}:0:${H / 8}:black`;

const black = (seconds) => ({ video: `color=black:size=${W}x${H}:rate=${RATE}`, audio: null, seconds });

/** One act's segments: scenes with the logo, a fade in at its start and out at its end. */
function actSegments(item, broadcast, audioHz) {
  const logo = broadcast.letterbox ? LOGO_IN_FILM : LOGO;
  const scenes = item.scenes;
  return scenes.map((s, i) => {
    if (s.kind === 'trap') return black(s.seconds);
    const filters = [];
    if (broadcast.letterbox || s.letterbox) filters.push(LETTERBOX);
    filters.push(logo);
    const fadeIn = i === 0 || scenes[i - 1].kind === 'trap';
    const fadeOut = i === scenes.length - 1 || scenes[i + 1].kind === 'trap';
    return {
      video: `${SCENES[s.picture]},${filters.join(',')}`,
      audio: voice(audioHz + i * 30, s.quiet ? 0.1 : 1.4),
      seconds: s.seconds,
      fadeIn,
      fadeOut,
    };
  });
}

/** A break's segments: black, then each spot's picture followed by black (a spot counts black to black). */
function breakSegments(item, counter) {
  const segments = [black(SEPARATOR)];
  for (const seconds of item.spots) {
    const n = counter.next++;
    // Every third spot is letterboxed (16:9 inside 4:3); the audio is a jingle or loud noise.
    const picture = ADS[n % ADS.length] + (n % 3 === 2 ? `,${LETTERBOX}` : '');
    const audio = n % 2 === 0 ? jingle(300 + (n % 5) * 70) : loudNoise(100 + n);
    segments.push({ video: picture, audio, seconds: seconds - SEPARATOR }, black(SEPARATOR));
  }
  return segments;
}

/** The broadcast as segments plus its true breaks [start, end] in seconds (the edges' blacks included). */
export function planBroadcast(broadcast) {
  const segments = [];
  const breaks = [];
  const counter = { next: broadcast.firstAd ?? broadcast.name.length };
  let at = 0;
  broadcast.items.forEach((item, index) => {
    const parts = item.kind === 'act' ? actSegments(item, broadcast, 180 + index * 20) : breakSegments(item, counter);
    const seconds = parts.reduce((sum, part) => sum + part.seconds, 0);
    if (item.kind === 'break') breaks.push([round(at), round(at + seconds)]);
    segments.push(...parts);
    at += seconds;
  });
  return { segments, breaks, duration: round(at) };
}

const round = (seconds) => Math.round(seconds * 1000) / 1000;

function segmentChains({ video, audio, seconds, fadeIn, fadeOut }, i) {
  const vf = [`${video},trim=duration=${seconds}`];
  const af = [`${audio ?? 'anullsrc=r=48000:cl=mono'},atrim=duration=${seconds}`];
  if (fadeIn) {
    vf.push(`fade=t=in:d=${FADE}`);
    af.push(`afade=t=in:d=${FADE}`);
  }
  if (fadeOut) {
    vf.push(`fade=t=out:st=${seconds - FADE}:d=${FADE}`);
    af.push(`afade=t=out:st=${seconds - FADE}:d=${FADE}`);
  }
  return [
    `${vf.join(',')},format=yuv420p,setsar=1[v${i}]`,
    `${af.join(',')},aformat=sample_fmts=fltp:channel_layouts=mono[a${i}]`,
  ];
}

/** One filter graph of lavfi sources joined by concat. */
export function broadcastGraph(segments) {
  const chains = segments.flatMap(segmentChains);
  const inputs = segments.map((_, i) => `[v${i}][a${i}]`).join('');
  // The MP2 encoder wants whole 1152-sample frames; concat hands over whatever it has.
  const concat = `${inputs}concat=n=${segments.length}:v=1:a=1[v][joined]`;
  return `${chains.join(';')};${concat};[joined]asetnsamples=n=1152:p=0[a]`;
}

async function encode(path, segments) {
  const partial = `${path}.partial`;
  // prettier-ignore
  await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-y',
      '-threads',
      '1',
      '-filter_complex',
      broadcastGraph(segments),
      '-map',
      '[v]',
      '-map',
      '[a]',
      '-c:v',
      'mpeg2video',
      '-b:v',
      '900k',
      '-g',
      '12',
      '-c:a',
      'mp2',
      '-b:a',
      '128k',
      '-f',
      'mpegts',
      `file:${partial}`,
    ],
    { maxBuffer: 1024 * 1024 },
  );
  renameSync(partial, path);
}

/**
 * Makes (or finds in `dir`, made by this recipe) the broadcasts named in `names` (default all),
 * `parallel` at a time. Returns each file's path, duration and true breaks.
 */
export async function makeBroadcastSet(dir, { names, parallel = 2 } = {}) {
  mkdirSync(dir, { recursive: true });
  const chosen = BROADCASTS.filter((b) => !names || names.includes(b.name));
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < chosen.length) {
      const broadcast = chosen[next++];
      results.push(await makeOne(dir, broadcast));
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, chosen.length) }, worker));
  return chosen.map((b) => results.find((r) => r.name === b.name));
}

async function makeOne(dir, broadcast) {
  const { segments, breaks, duration } = planBroadcast(broadcast);
  const path = join(dir, `${broadcast.name}.ts`);
  const labelPath = join(dir, `${broadcast.name}.json`);
  const label = { name: broadcast.name, version: VERSION, duration, breaks };
  const cached = existsSync(path) && existsSync(labelPath) ? readFileSync(labelPath, 'utf8') : null;
  if (cached !== JSON.stringify(label)) {
    await encode(path, segments);
    writeFileSync(labelPath, JSON.stringify(label));
  }
  return { name: broadcast.name, path, duration, breaks };
}

export { normalizeSpans, pairsOf, scoreDetection, sumScores } from './commercial-score.mjs';
