/**
 * What the person at the TV does reaches the player service through its backend's
 * events, whichever backend it is: a play started on the device becomes what is
 * current (status, progress reports, channel keys follow it), Back on the remote is a
 * stop whose position is the resume point, and an end of something no longer current
 * changes nothing. A scripted backend stands in for the page; the rules are the service's.
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AntennaServerClient, ServerChannel, ServerItem } from '../../src/player/antenna-server.client.js';
import {
  type BackendEvents,
  IDLE_STATE,
  type LoadOptions,
  type MediaRef,
  type MediaState,
  type PlayerBackend,
} from '../../src/player/player-backend.js';
import { PlayerService } from '../../src/player/player.service.js';

class ScriptedBackend extends EventEmitter<BackendEvents> implements PlayerBackend {
  readonly name = 'scripted';
  media: MediaState = { ...IDLE_STATE, available: true };
  loads: LoadOptions[] = [];
  start = () => Promise.resolve();
  stop = () => Promise.resolve();
  state = () => this.media;
  readBack = () => Promise.resolve(this.media);
  load(_url: string, options: LoadOptions): Promise<void> {
    this.loads.push(options);
    this.media = { ...this.media, loaded: true, paused: false, position: options.start ?? 0 };
    return Promise.resolve();
  }
  unload(): Promise<void> {
    this.media = { ...this.media, loaded: false };
    return Promise.resolve();
  }
  setPaused = (paused: boolean) => Promise.resolve(void (this.media = { ...this.media, paused }));
  setMuted = (muted: boolean) => Promise.resolve(void (this.media = { ...this.media, muted }));
  seekTo = (position: number) => Promise.resolve(void (this.media = { ...this.media, position }));
  toggleCaptions = () => Promise.resolve();
  setPip = () => Promise.resolve();
  showMessage = () => Promise.resolve();
  navigate = () => Promise.resolve();
  /** The person pressed play on the device. */
  playOnDevice(media: MediaRef, tag: number, position = 0): void {
    this.media = { ...this.media, loaded: true, paused: false, position };
    this.emit('played', { media, tag });
  }
}

const ITEMS: Record<string, ServerItem> = {
  ep1: {
    id: 'ep1',
    show_id: 's1',
    title: 'Harbour Lights',
    episode_title: 'Pilot',
    duration: 600,
    file: { available: true, chapters: [] },
  },
};
const CHANNELS: ServerChannel[] = [
  { id: 'c2', number: '2', name: 'News Two' },
  { id: 'c4', number: '4.1', name: 'Four One' },
  { id: 'c7', number: '7', name: 'Seven' },
];

function stubServer() {
  const positions: Array<[string, number]> = [];
  const server = {
    file: (id: string) => Promise.resolve(ITEMS[id] ?? Promise.reject(new Error(`no ${id}`))),
    channels: () => Promise.resolve(CHANNELS),
    programmeAt: () => Promise.resolve(undefined),
    itemStreamUrl: (id: string) => `http://server/dvr/files/${id}/stream`,
    liveStreamUrl: (number: string) => `http://server/devices/ANY/channels/${number}/stream.mpg`,
    setPlaybackTime: (id: string, seconds: number) => Promise.resolve(void positions.push([id, seconds])),
    markWatched: () => Promise.resolve(),
  };
  return { server: server as unknown as AntennaServerClient, positions };
}

let player: PlayerService | undefined;
afterEach(async () => {
  await player?.stop();
  player = undefined;
});

function setUp() {
  const backend = new ScriptedBackend();
  const { server, positions } = stubServer();
  player = new PlayerService({
    backend,
    server,
    logger: pino({ level: 'silent' }),
    seekForwardSeconds: 30,
    seekBackwardSeconds: 10,
    progressIntervalMs: 20,
  });
  player.start();
  return { backend, positions, service: player };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('plays and stops made on the device', () => {
  it('makes a play started on the device current, with its progress reported', async () => {
    const { backend, positions, service } = setUp();
    backend.playOnDevice({ kind: 'item', id: 'ep1' }, -1, 42);
    await settle();
    expect(service.status()).toMatchObject({
      status: 'playing',
      playback_time: 42,
      now_playing: { title: 'Harbour Lights', episode_title: 'Pilot', type: 'episode' },
    });
    expect(positions.some(([id, seconds]) => id === 'ep1' && seconds === 42)).toBe(true);
    // Commands act on it: a pause is the device's.
    expect((await service.pause()).status).toBe('paused');
  });

  it('takes Back on the remote as a stop: the position is the resume point, the status stopped', async () => {
    const { backend, positions, service } = setUp();
    backend.playOnDevice({ kind: 'item', id: 'ep1' }, -1, 10);
    await settle();
    positions.length = 0;
    backend.media = { ...backend.media, loaded: false };
    backend.emit('ended', { reason: 'stopped', tag: -1, position: 123.5 });
    await settle();
    expect(positions).toContainEqual(['ep1', 123.5]);
    expect(service.status()).toEqual({ status: 'stopped', muted: false });
  });

  it('ignores the end of something no longer current', async () => {
    const { backend, service } = setUp();
    await service.playRecording('ep1');
    const tag = backend.loads.at(-1)!.tag;
    backend.emit('ended', { reason: 'stopped', tag: tag + 100, position: 5 });
    await settle();
    expect(service.status()).toMatchObject({ status: 'playing', now_playing: { title: 'Harbour Lights' } });
  });

  it('follows channels tuned on the device: status, previous channel and channel keys', async () => {
    const { backend, service } = setUp();
    backend.playOnDevice({ kind: 'channel', number: '2' }, -1);
    await settle();
    expect(service.status()).toMatchObject({
      channel: { number: '2', name: 'News Two' },
      now_playing: { title: 'News Two', type: 'live' },
    });
    backend.playOnDevice({ kind: 'channel', number: '7' }, -2);
    await settle();
    // previous_channel goes back to the one tuned on the device before, by a command's load.
    expect((await service.previousChannel()).channel).toMatchObject({ number: '2' });
    expect(backend.loads.at(-1)?.media).toEqual({ kind: 'channel', number: '2' });
    expect((await service.channelUp()).channel).toMatchObject({ number: '4.1' });
  });

  it('passes what is played in the library terms to the backend with every load', async () => {
    const { backend, service } = setUp();
    await service.playRecording('ep1');
    await service.playChannel('4-1');
    expect(backend.loads.map((load) => load.media)).toEqual([
      { kind: 'item', id: 'ep1' },
      { kind: 'channel', number: '4.1' },
    ]);
  });
});
