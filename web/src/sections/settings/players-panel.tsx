/**
 * The players the server knows: each TV running `antenna player` registers by itself.
 * Online or not, where it is reached, what it plays now; one no longer used can be
 * forgotten (a player that still runs is back at its next heartbeat).
 */
import { useQuery } from '@tanstack/react-query';
import { playersQueries, usePlayerChanges } from '../../api/players.queries';
import type { ClientInfo } from '../../api/server-types';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import { ago, playerActivity } from './settings-view';

export function PlayersPanel() {
  const players = useQuery(playersQueries.list());
  const { forget } = usePlayerChanges();
  return (
    <section className="panel" aria-labelledby="players-title">
      <h2 id="players-title">Players</h2>
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
          <PlayerEntry key={player.device_id} player={player} onForget={() => forget.mutate(player.device_id)} />
        ))}
      </ul>
    </section>
  );
}

function PlayerEntry({ player, onForget }: { player: ClientInfo; onForget: () => void }) {
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
      </div>
      {!player.online && (
        <FocusButton onClick={onForget} aria-label={`Forget ${player.name}`}>
          Forget
        </FocusButton>
      )}
    </li>
  );
}
