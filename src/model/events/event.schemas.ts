/**
 * What Antenna tells people about: one event model for the SSE feed (GET /dvr/events),
 * webhooks, MQTT and the app's notifications. Each event has a kind, a severity, a
 * sentence for people and the facts a script needs (`data`: only the fields that apply).
 * The domains that notice something emit it through an EventSink (app/ wires them to
 * the events domain), so none of them imports it.
 */
import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../../common/string-enum.js';

export const EVENT_KINDS = [
  'recording.scheduled',
  'recording.started',
  'recording.completed',
  'recording.failed',
  'recording.skipped',
  'recording.conflict',
  'recording.commercials',
  'disk.low',
  'disk.full',
  'source.failing',
  'source.back',
  'guide.failed',
  'guide.applied',
  'library.scanned',
  'player.online',
  'player.offline',
  'playback.started',
  'playback.stopped',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const EVENT_SEVERITIES = ['info', 'warning', 'error'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

const optionalString = (description: string) => Type.Optional(Type.String({ description }));
const optionalInteger = (description: string) => Type.Optional(Type.Integer({ description }));

export const EventDataSchema = Type.Object(
  {
    job_id: optionalString('the DVR job (recording.*)'),
    rule_id: optionalInteger('the rule that planned it'),
    item_id: optionalString('the library item a recording became, or a player plays'),
    channel: optionalString('a channel number'),
    title: optionalString("the programme's or item's title"),
    episode_title: optionalString('its episode title'),
    start_time: optionalInteger('epoch seconds the programme starts'),
    end_time: optionalInteger('epoch seconds it ends'),
    reason: optionalString('why (failed, skipped, conflict, source failing): a sentence'),
    source_id: optionalString('a DVR source'),
    guide_id: optionalString('a guide'),
    path: optionalString('a folder (disk.*, library.scanned)'),
    free_bytes: optionalInteger('free space left (disk.*)'),
    total_bytes: optionalInteger("the disk's size (disk.*)"),
    threshold_bytes: optionalInteger('the disk-low setting (disk.low)'),
    device_id: optionalString('a player (player.*, playback.*)'),
    player_name: optionalString("the player's name"),
    added: optionalInteger('items added (library.scanned)'),
    updated: optionalInteger('items updated (library.scanned)'),
    removed: optionalInteger('items removed (library.scanned)'),
    commercials: Type.Optional(
      Type.Array(Type.Number(), {
        description: "the recording's marks now, seconds: start, end, start, end, ... (recording.commercials)",
      }),
    ),
    commercial_detection: Type.Optional(
      StringEnum(['live', 'live_failed', 'done', 'failed'] as const, {
        description:
          "where detection stands (recording.commercials): 'live' while recording, 'done' after the final pass; the failed states give a reason",
      }),
    ),
  },
  { additionalProperties: false, title: 'Event data' },
);
export type EventData = Static<typeof EventDataSchema>;

export const EventSchema = Type.Object(
  {
    id: Type.Integer({ description: 'increasing; the SSE id (Last-Event-ID resumes after it)' }),
    kind: StringEnum(EVENT_KINDS),
    at: Type.Integer({ description: 'epoch ms it happened' }),
    severity: StringEnum(EVENT_SEVERITIES),
    message: Type.String({ description: 'what happened, a sentence for people' }),
    data: EventDataSchema,
  },
  { title: 'Event' },
);
export type AntennaEvent = Static<typeof EventSchema>;

/** What a domain hands over; the events domain numbers and times it. */
export type NewEvent = Pick<AntennaEvent, 'kind' | 'severity' | 'message' | 'data'>;
export type EventSink = (event: NewEvent) => void;

/** A sink that drops everything: services built without the events domain (tests, tools). */
export const NO_EVENTS: EventSink = () => {};
