/**
 * "Play on…": sends an item or a channel to one of the TVs the server knows. The button
 * opens a list of the players (offline ones shown, not offered); choosing one plays it
 * there over the player's interface B, and the answer (or the error) is said.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { playersQueries, usePlayerChanges } from '../api/players.queries';
import type { PlayOnBody } from '../api/server-types';
import { ErrorNotice } from './error-notice';
import { FocusButton, FocusGroup } from './focusable';
import './play-on.css';

export function PlayOnButton({ what, label }: { what: PlayOnBody; label: string }) {
  const [open, setOpen] = useState(false);
  const players = useQuery({ ...playersQueries.list(), enabled: open });
  const { playOn } = usePlayerChanges();
  const online = (players.data ?? []).filter((player) => player.online);
  return (
    <div className="play-on">
      <FocusButton onClick={() => setOpen(!open)} aria-expanded={open} aria-label={`Play on… a TV: ${label}`}>
        Play on…
      </FocusButton>
      {open && (
        <FocusGroup className="play-on-list" aria-label="Players">
          {players.isPending && <p className="muted">Looking for players…</p>}
          {players.isError && <ErrorNotice error={players.error} retry={() => void players.refetch()} />}
          {players.data && online.length === 0 && (
            <p className="muted">
              No player is online. Start <code>antenna player</code> on a TV box; it shows up here by itself.
            </p>
          )}
          {online.map((player) => (
            <FocusButton
              key={player.device_id}
              disabled={playOn.isPending}
              onClick={() => {
                setOpen(false);
                playOn.mutate({ deviceId: player.device_id, body: what });
              }}
            >
              {player.name}
            </FocusButton>
          ))}
        </FocusGroup>
      )}
      {playOn.isError && !open && (
        <div className="play-on-said">
          <ErrorNotice error={playOn.error} />
        </div>
      )}
      {playOn.isSuccess && !open && (
        <p className="notice play-on-said" role="status">
          Playing {label} on {players.data?.find((p) => p.device_id === playOn.variables?.deviceId)?.name ?? 'the TV'}.
        </p>
      )}
    </div>
  );
}
