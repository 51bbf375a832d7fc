/**
 * The server's payloads, as types derived from the very TypeBox schemas that validate
 * and serialize them (src/model, src/api): never written a second time here. Only
 * types cross over (`import type`), so none of the server's code lands in the bundle.
 */
import type { Static, TObject } from '@sinclair/typebox';
import type {
  Channel,
  Collection,
  ContentMovie,
  Episode,
  Job,
  Movie,
  Playlist,
  Show,
  Video,
  VideoGroup,
} from '../../../src/model/library/library.schemas.js';
import type { StatusSchema } from '../../../src/model/status.schemas.js';
import type {
  GuideAiringSchema,
  GuideChannelSchema,
  GuidePageSchema,
} from '../../../src/model/dvr/guide-page.schemas.js';
import type { FileItem as FileItemSchema } from '../../../src/model/library/file-item.schemas.js';
import type { GuideMatchSchema, SearchResultsSchema } from '../../../src/model/library/search.schemas.js';
import type {
  AiringSchema,
  DvrInfoSchema,
  GuideRefreshSchema,
  GuideSchema,
  JobRef,
  RefreshResultSchema,
  ScansQueuedSchema,
  SourceBodySchema,
  SourceRefreshSchema,
  SourceSchema,
} from '../../../src/model/dvr/dvr.schemas.js';
import type {
  GuideEditSchema,
  LineupChannel,
  LineupEdit,
  LineupGroupSchema,
  RenumberBodySchema,
} from '../../../src/model/dvr/lineup.schemas.js';
import type {
  KeywordRule,
  KeywordRuleSchema,
  ProgramRule,
  ProgramRuleSchema,
  SeriesRule,
  SeriesRuleSchema,
  SlotRule,
  SlotRuleSchema,
  RuleTypeInfoSchema,
  storedRuleSchema,
} from '../../../src/model/dvr/rule.schemas.js';

export type { Channel, Collection, ContentMovie, Episode, Job, Movie, Playlist, Show, Video, VideoGroup };
export type ServerStatus = Static<typeof StatusSchema>;

/** Anything that plays: an episode, a movie or a video (lists such as /api/v1/all mix them). */
export type PlayableItem = Episode | Movie | ContentMovie | Video;

/** `GET /dvr/files/:id`: the item in its own shape, its file's facts, and the PascalCase fields clients read. */
export type FileItem = PlayableItem & Static<typeof FileItemSchema>;
export type CommercialDetection = NonNullable<FileItem['file']['commercial_detection']>;

/** The DVR's management resources (`/dvr`, `/dvr/sources`, `/dvr/guides`, `/dvr/refresh`, `/dvr/scans`). */
export type DvrInfo = Static<typeof DvrInfoSchema>;
export type Source = Static<typeof SourceSchema>;
export type SourceBody = Static<typeof SourceBodySchema>;
export type Guide = Static<typeof GuideSchema>;
export type RefreshResult = Static<typeof RefreshResultSchema>;
/**
 * `POST /dvr/sources/:id/refresh`, `POST /dvr/guides/:id/refresh`: what one refresh read, or why it was not applied.
 */
export type SourceRefresh = Static<typeof SourceRefreshSchema>;
export type GuideRefresh = Static<typeof GuideRefreshSchema>;
export type ScansQueued = Static<typeof ScansQueuedSchema>;
export type JobRefBody = Static<typeof JobRef>;

/**
 * The lineup as the user shapes it (`/dvr/lineup`): each channel with its source's values and the user's edits, the
 * groups, and the bodies that change them.
 */
export type { LineupChannel, LineupEdit };
export type LineupGroup = Static<typeof LineupGroupSchema>;
export type RenumberBody = Static<typeof RenumberBodySchema>;
export type GuideEdit = Static<typeof GuideEditSchema>;

/** A recording rule's body (`POST`/`PUT /dvr/rules`), one per type, and a stored rule as `GET /dvr/rules` lists it. */
export type RuleBody = SeriesRule | KeywordRule | SlotRule | ProgramRule;
export type RuleTypeName = RuleBody['type'];
/** `GET /dvr/rule-types`: each kind of pass with its own fields, what the pass form is drawn from. */
export type RuleTypeInfo = Static<typeof RuleTypeInfoSchema>;
type Stored<T extends TObject> = Static<ReturnType<typeof storedRuleSchema<T>>>;
export type StoredRule =
  | Stored<typeof SeriesRuleSchema>
  | Stored<typeof KeywordRuleSchema>
  | Stored<typeof SlotRuleSchema>
  | Stored<typeof ProgramRuleSchema>;

/** `GET /dvr/guide`: a page of the guide grid (channels × a window of time), its channels and their airings. */
export type GuidePage = Static<typeof GuidePageSchema>;
export type GuideChannel = Static<typeof GuideChannelSchema>;
export type GuideAiring = Static<typeof GuideAiringSchema>;
/** `GET /dvr/channels/:number/guide`: a channel's programmes between two times. */
export type Airing = Static<typeof AiringSchema>;

/** `GET /dvr/search`: library matches in their interface-A shapes, and upcoming guide programmes. */
export type SearchResults = Static<typeof SearchResultsSchema>;
export type GuideMatch = Static<typeof GuideMatchSchema>;

import type { ClientInfoSchema, PlayOnBodySchema } from '../../../src/model/players/client.schemas.js';
/** A player the server knows (GET /dvr/clients/info) and what "Play on…" sends it. */
export type ClientInfo = Static<typeof ClientInfoSchema>;
export type PlayOnBody = Static<typeof PlayOnBodySchema>;

import type {
  PlaybackSettingsSchema,
  PlayerSettingsBodySchema,
} from '../../../src/model/players/playback-settings.schemas.js';
export type PlaybackSettings = Static<typeof PlaybackSettingsSchema>;
export type PlayerSettingsBody = Static<typeof PlayerSettingsBodySchema>;
export type { CommercialSkipMode } from '../../../src/model/players/commercial-skip-modes.js';

import type {
  ChannelCollectionBodySchema,
  ChannelCollectionSchema,
} from '../../../src/model/dvr/channels-guide.schemas.js';
/** Favorites and the user's channel collections (GET /dvr/collections/channels). */
export type ChannelCollection = Static<typeof ChannelCollectionSchema>;
export type ChannelCollectionBody = Static<typeof ChannelCollectionBodySchema>;

import type { EventSchema } from '../../../src/model/events/event.schemas.js';
/** What the server tells (GET /dvr/events). */
export type ServerEvent = Static<typeof EventSchema>;

import type { EventKind } from '../../../src/model/events/event.schemas.js';
import type {
  WebhookBodySchema,
  WebhookDeliverySchema,
  WebhookSchema,
} from '../../../src/model/events/webhook.schemas.js';
export type { EventKind };
/** Where events are POSTed (GET /dvr/webhooks), what makes or changes one, and its delivery log. */
export type Webhook = Static<typeof WebhookSchema>;
export type WebhookBody = Static<typeof WebhookBodySchema>;
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
