/**
 * Playback settings: the household's (GET/PUT /dvr/settings/playback), which every player
 * follows, and a player's own (PUT /dvr/clients/:device_id/settings), which it follows
 * instead. There are no profiles: a household shares one default, a TV may differ.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';
import { COMMERCIAL_SKIP_MODES } from './commercial-skip-modes.js';

export const CommercialSkipSchema = StringEnum(COMMERCIAL_SKIP_MODES, {
  description: 'at a commercial break: off (marks only), ask (a "Skip ad" prompt) or auto (skipped, with Undo)',
});

export const PlaybackSettingsSchema = Type.Object(
  { commercial_skip: CommercialSkipSchema },
  { additionalProperties: false, title: 'Playback settings' },
);
export type PlaybackSettings = Static<typeof PlaybackSettingsSchema>;

export const PlayerSettingsBodySchema = Type.Object(
  {
    commercial_skip: Type.Union([CommercialSkipSchema, Type.Null()], {
      description: "the player's own mode; null follows the household's",
    }),
  },
  { additionalProperties: false, title: "A player's own settings" },
);
export type PlayerSettingsBody = Static<typeof PlayerSettingsBodySchema>;
