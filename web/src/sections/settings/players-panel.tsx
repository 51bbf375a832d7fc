/**
 * The players the server knows: each TV running `antenna player` registers by itself.
 * Online or not, where it is reached, what it plays now; one no longer used can be
 * forgotten (a player that still runs is back at its next heartbeat). What players do
 * at a commercial break: the household's choice, and a player's own where it differs.
 */
import { useQuery } from '@tanstack/react-query';
import { playersQueries, usePlaybackSettingsChanges, usePlayerChanges } from '../../api/players.queries';
import type { ClientInfo, CommercialSkipMode } from '../../api/server-types';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import { ChoiceField } from '../../components/form-fields';
import { ago, playerActivity } from './settings-view';

const SKIP_CHOICES: ReadonlyArray<{ value: CommercialSkipMode; label: string }> = [
  { value: 'off', label: 'Off' },
  { value: 'ask', label: 'Ask' },
  { value: 'auto', label: 'Auto' },
];
const SKIP_MEANING: Record<CommercialSkipMode, string> = {
  off: 'Breaks are marked on the seek bar; nothing else happens.',
  ask: 'A “Skip ad” button appears for a few seconds when a break begins.',
  auto: 'Breaks are skipped the first time playback reaches them, with Undo for a few seconds.',
};

function HouseholdSkip() {
  const settings = useQuery(playersQueries.playback());
  const { household } = usePlaybackSettingsChanges();
  const mode = household.isPending ? household.variables.commercial_skip : settings.data?.commercial_skip;
  return (
    <div className="household-skip">
      {settings.isError && <ErrorNotice error={settings.error} retry={() => void settings.refetch()} />}
      {household.isError && <ErrorNotice error={household.error} />}
      {mode && (
        <>
          <ChoiceField
            label="Commercial breaks (this app and every player without its own choice)"
            value={mode}
            options={SKIP_CHOICES}
            onChange={(commercial_skip) => household.mutate({ commercial_skip })}
          />
          <p className="muted">{SKIP_MEANING[mode]}</p>
        </>
      )}
    </div>
  );
}

export function PlayersPanel() {
  const players = useQuery(playersQueries.list());
  const { forget } = usePlayerChanges();
  const { player: setOwn } = usePlaybackSettingsChanges();
  return (
    <section className="panel" aria-labelledby="players-title">
      <h2 id="players-title">Players</h2>
      <HouseholdSkip />
      {setOwn.isError && <ErrorNotice error={setOwn.error} />}
      {players.isPending && <Loading what="the players" />}
      {players.isError && <ErrorNotice error={players.error} retry={() => void players.refetch()} />}
      {players.data?.length === 0 && (
        <p className="empty">
          No player has registered yet. Run <code>antenna player</code> on a TV box (or <code>antenna start</code>): it
          shows up here by itself.
        </p>
      )}
      {forget.isError && <ErrorNotice error={forget.error} />}
      <ul className="entry-list">
        {players.data?.map((player) => (
          <PlayerEntry
            key={player.device_id}
            player={player}
            onForget={() => forget.mutate(player.device_id)}
            onSkip={(commercial_skip) => setOwn.mutate({ deviceId: player.device_id, body: { commercial_skip } })}
          />
        ))}
      </ul>
    </section>
  );
}

type OwnChoice = CommercialSkipMode | 'household';

function PlayerEntry({
  player,
  onForget,
  onSkip,
}: {
  player: ClientInfo;
  onForget: () => void;
  onSkip: (mode: CommercialSkipMode | null) => void;
}) {
  const household = SKIP_CHOICES.find((choice) => choice.value === player.commercial_skip)?.label ?? '';
  return (
    <li className="entry">
      <div className="entry-what">
        <span className={player.online ? 'player-state online' : 'player-state'}>
          {player.online ? 'Online' : 'Offline'}
        </span>
        <span className="entry-name">{player.name}</span>
        <span className="entry-location">
          {player.local_ip}:{player.port} · {player.platform} · {player.backend === 'browser' ? 'TV app' : 'mpv'} ·
          version {player.app_version}
        </span>
        <span className="muted">
          {player.online ? playerActivity(player.status) : `Last seen ${ago(player.last_seen_at)}`}
        </span>
        <ChoiceField<OwnChoice>
          label={`Commercial breaks on ${player.name}`}
          value={player.own_commercial_skip ?? 'household'}
          options={[
            {
              value: 'household',
              label: player.own_commercial_skip === null ? `As the household (${household})` : 'As the household',
            },
            ...SKIP_CHOICES,
          ]}
          onChange={(choice) => onSkip(choice === 'household' ? null : choice)}
        />
      </div>
      {!player.online && (
        <FocusButton onClick={onForget} aria-label={`Forget ${player.name}`}>
          Forget
        </FocusButton>
      )}
    </li>
  );
}
