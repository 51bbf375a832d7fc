/**
 * Interface B, the player control interface: `GET /api/status`,
 * `GET /api/favorite_channels`, and the control POSTs, each answering the player
 * status. Handlers check parameters and call one PlayerService method.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../common/errors.js';
import { ITEM_ID_PATTERN } from '../model/ids.js';
import type { PlayerService } from './player.service.js';
import type { PlayerStatus } from './player-state.js';
import { SECTIONS, matchSection } from './sections.js';
import { ErrorSchema, sendError } from '../http/error-reply.js';
import { PlayerStatusSchema } from '../model/players/player-status.schemas.js';

const FavoriteChannelSchema = Type.Object(
  {
    number: Type.String(),
    call_sign: Type.Optional(Type.String()),
    name: Type.String(),
    image_url: Type.Optional(Type.String()),
    hd: Type.Boolean(),
  },
  { title: 'Favorite channel' },
);

/** Longest notification parts: what fits on a TV in a few seconds. */
export const NOTIFY_TITLE_MAX = 100;
export const NOTIFY_MESSAGE_MAX = 500;

const NotifyBodySchema = Type.Object(
  {
    title: Type.String({
      maxLength: NOTIFY_TITLE_MAX,
      description: `up to ${NOTIFY_TITLE_MAX} characters; may be empty`,
    }),
    message: Type.String({
      minLength: 1,
      maxLength: NOTIFY_MESSAGE_MAX,
      description: `1 to ${NOTIFY_MESSAGE_MAX} characters`,
    }),
  },
  // Clients may send more (an icon, a colour); what this player cannot show is ignored.
  { additionalProperties: true, title: 'Notification' },
);

/** Seek by at most a week either way, the same bound as a playback position. */
export const MAX_SEEK_SECONDS = 7 * 24 * 3600;

const Errors = {
  400: ErrorSchema,
  403: ErrorSchema,
  404: ErrorSchema,
  409: ErrorSchema,
  501: ErrorSchema,
  502: ErrorSchema,
  503: ErrorSchema,
  504: ErrorSchema,
};
const tags = ['player'];

type Control = readonly [path: string, summary: string, run: (player: PlayerService) => Promise<PlayerStatus>];

const CONTROLS: readonly Control[] = [
  ['/api/toggle_pip', 'Toggle picture in picture (a small always-on-top window in a corner)', (p) => p.togglePip()],
  ['/api/toggle_mute', 'Toggle mute', (p) => p.toggleMute()],
  [
    '/api/toggle_cc',
    'Show or hide captions (selects the first caption or subtitle track when none is)',
    (p) => p.toggleCaptions(),
  ],
  ['/api/channel_up', 'The next channel in number order (wraps)', (p) => p.channelUp()],
  ['/api/channel_down', 'The previous channel in number order (wraps)', (p) => p.channelDown()],
  ['/api/previous_channel', 'Back to the channel watched before this one', (p) => p.previousChannel()],
  ['/api/toggle_pause', 'Pause or resume', (p) => p.togglePause()],
  ['/api/toggle_record', 'Record what is on the current channel, or stop recording it', (p) => p.toggleRecord()],
  ['/api/pause', 'Pause', (p) => p.pause()],
  ['/api/resume', 'Resume', (p) => p.resume()],
  ['/api/stop', 'Stop playback (the position is kept on the server)', (p) => p.stopPlayback()],
  ['/api/seek_forward', 'Seek ahead by the seek-forward amount', (p) => p.seekForward()],
  ['/api/seek_backward', 'Seek back by the seek-backward amount', (p) => p.seekBackward()],
  [
    '/api/skip_forward',
    'Skip to the next chapter mark (commercial boundary, else chapter, else the seek amount)',
    (p) => p.skipForward(),
  ],
  ['/api/skip_backward', 'Skip to the previous chapter mark', (p) => p.skipBackward()],
  [
    '/api/start_over',
    "Live TV: play the current programme from its start (as far back as the channel's buffer holds); an Antenna extension",
    (p) => p.startOver(),
  ],
  [
    '/api/jump_to_live',
    'Live TV: back to live after a pause or a seek back; an Antenna extension',
    (p) => p.jumpToLive(),
  ],
];

/** Paths and the methods they answer, for the 405s. */
export const INTERFACE_B_PATHS: readonly (readonly [string, 'GET' | 'POST'])[] = [
  ['/api/status', 'GET'],
  ['/api/favorite_channels', 'GET'],
  ...CONTROLS.map(([path]) => [path, 'POST'] as const),
  ['/api/seek/:seconds', 'POST'],
  ['/api/play/channel/:number', 'POST'],
  ['/api/play/recording/:id', 'POST'],
  ['/api/navigate/:section', 'POST'],
  ['/api/notify', 'POST'],
];

const statusResponse = { 200: PlayerStatusSchema, ...Errors };

export function registerPlayerControlRoutes(app: FastifyInstance, player: PlayerService): void {
  app.get(
    '/api/status',
    { schema: { summary: 'The player status', tags, response: { 200: PlayerStatusSchema } } },
    () => player.status(),
  );
  app.get(
    '/api/favorite_channels',
    {
      schema: {
        summary: "The server's favorite channels",
        tags,
        response: { 200: Type.Array(FavoriteChannelSchema), 502: ErrorSchema, 503: ErrorSchema, 504: ErrorSchema },
      },
    },
    () => player.favoriteChannels(),
  );

  for (const [path, summary, run] of CONTROLS) {
    app.post(path, { schema: { summary, tags, response: statusResponse } }, () => run(player));
  }

  app.post(
    '/api/seek/:seconds',
    {
      schema: {
        summary: 'Seek by a number of seconds from where playback is (negative: back), clamped to the item',
        tags,
        params: Type.Object({
          seconds: Type.String({
            pattern: '^[-+]?[0-9]{1,7}(\\.[0-9]{1,6})?$',
            description: `a number of seconds such as 30, -10 or 2.5, at most ${MAX_SEEK_SECONDS} either way`,
          }),
        }),
        response: statusResponse,
      },
    },
    (request) => {
      const seconds = Number((request.params as { seconds: string }).seconds);
      if (Math.abs(seconds) > MAX_SEEK_SECONDS)
        throw new BadRequestError('seconds', `Seek by at most ${MAX_SEEK_SECONDS} seconds either way.`);
      return player.seekBy(seconds);
    },
  );

  app.post(
    '/api/play/channel/:number',
    {
      schema: {
        summary: 'Play a channel live from the server',
        tags,
        params: Type.Object({
          number: Type.String({
            pattern: '^\\d{1,5}([.-]\\d{1,5})?$',
            description: 'a channel number such as 12 or 12.1',
          }),
        }),
        response: statusResponse,
      },
    },
    (request) => player.playChannel((request.params as { number: string }).number),
  );

  app.post(
    '/api/play/recording/:id',
    {
      schema: {
        summary: 'Play an episode, movie or video from the server, from where it was left',
        tags,
        // Checked here, not only by the server: `..` would reach another of its routes (the HTTP client resolves it).
        params: Type.Object({
          id: Type.String({
            pattern: ITEM_ID_PATTERN,
            description:
              "the id of an episode, movie or video, such as imp-0123456789abcdef or rec-1767312000-4: letters, digits, '-', '_' and '.', beginning with a letter or digit, at most 128 characters",
          }),
        }),
        response: statusResponse,
      },
    },
    (request) => player.playRecording((request.params as { id: string }).id),
  );

  registerMissingParameters(app);

  app.post(
    '/api/navigate/:section',
    {
      schema: {
        summary: 'Show a section of the app (needs the TV app backend)',
        description: `Sections: ${SECTIONS.join(', ')}; case is ignored, and %20, _ and - stand for a space.`,
        tags,
        params: Type.Object({ section: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: statusResponse,
      },
    },
    (request, reply) => {
      const name = (request.params as { section: string }).section;
      const section = matchSection(name);
      if (!section) {
        return sendError(reply, {
          status: 400,
          code: 'invalid_parameter',
          parameter: 'section',
          allowed: [...SECTIONS],
          message: `There is no section '${name.slice(0, 100)}': use one of ${SECTIONS.join(', ')}.`,
        });
      }
      return player.navigate(section);
    },
  );

  app.post(
    '/api/notify',
    {
      schema: {
        summary: 'Show a message over the video for a few seconds',
        tags,
        body: NotifyBodySchema,
        response: statusResponse,
      },
    },
    (request) => {
      const body = request.body as { title: string; message: string };
      return player.notify(body.title, body.message);
    },
  );

  registerWrongMethods(app);
}

/** `/api/play/recording/` with nothing after it: the id is missing (400), not the path unknown (404). */
function registerMissingParameters(app: FastifyInstance): void {
  const missing = [
    ['/api/play/recording', 'id', 'the id of an episode, movie or video'],
    ['/api/play/channel', 'number', 'a channel number such as 12 or 12.1'],
  ] as const;
  for (const [path, parameter, what] of missing) {
    app.post(path, { schema: { hide: true } }, (_request, reply) =>
      sendError(reply, {
        status: 400,
        code: 'invalid_parameter',
        parameter,
        message: `The path parameter '${parameter}' is missing: give ${what}, as in POST ${path}/<${parameter}>.`,
      }),
    );
  }
}

/** Other methods on interface-B paths: 405 with the method that works, before any body is read. */
function registerWrongMethods(app: FastifyInstance): void {
  for (const [path, method] of INTERFACE_B_PATHS) {
    const allowed = method === 'GET' ? 'GET, HEAD' : 'POST';
    app.route({
      method: (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => m !== method),
      url: path,
      schema: { hide: true },
      onRequest: (_request, reply, done) => {
        sendError(reply.header('allow', allowed), {
          status: 405,
          code: 'method_not_allowed',
          message: `Use ${method} for ${path}.`,
        });
        done();
      },
      handler: (_request, reply) => reply,
    });
  }
}
