/**
 * Settings: where channels and the guide come from (sources, guides, Refresh now), the
 * library's folders and their scan, the recordings disk, the players (TVs) the server
 * knows, channel collections, webhooks, and the server itself.
 */
import { useQuery } from '@tanstack/react-query';
import { dvrQueries } from '../../api/dvr.queries';
import { libraryQueries } from '../../api/library.queries';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { LibraryPanel } from './library-panel';
import { PlayersPanel } from './players-panel';
import { ChannelCollectionsPanel } from './channel-collections-panel';
import { WebhooksPanel } from './webhooks-panel';
import { diskUse, eventsLine, formatUptime } from './settings-view';
import { SourcesPanel } from './sources-panel';
import './settings.css';

export function SettingsPage() {
  return (
    <div className="settings">
      <h1 className="page-title">Settings</h1>
      <SourcesPanel />
      <LibraryPanel />
      <RecordingsDiskPanel />
      <PlayersPanel />
      <ChannelCollectionsPanel />
      <WebhooksPanel />
      <ServerPanel />
    </div>
  );
}

function RecordingsDiskPanel() {
  const info = useQuery(dvrQueries.info());
  return (
    <section className="panel" aria-labelledby="disk-title">
      <h2 id="disk-title">Recordings</h2>
      {info.isPending && <Loading what="the recordings folder" />}
      {info.isError && <ErrorNotice error={info.error} retry={() => void info.refetch()} />}
      {info.data && <DiskBar path={info.data.path} disk={info.data.disk} />}
    </section>
  );
}

function DiskBar({ path, disk }: { path: string; disk: Parameters<typeof diskUse>[0] }) {
  const use = diskUse(disk);
  return (
    <div className="disk">
      <p>
        Recordings are written to <code>{path}</code>.
      </p>
      {use ? (
        <>
          <div
            className={`disk-bar${use.used > 0.9 ? ' disk-bar-full' : ''}`}
            role="meter"
            aria-label="Recordings disk in use"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(use.used * 100)}
            aria-valuetext={use.text}
          >
            <span style={{ width: `${use.used * 100}%` }} />
          </div>
          <p className="muted">
            {use.text} ({Math.round(use.used * 100)}% used)
          </p>
        </>
      ) : (
        <p className="muted">The server cannot read this disk’s free space.</p>
      )}
    </div>
  );
}

function ServerPanel() {
  const status = useQuery(libraryQueries.status());
  return (
    <section className="panel" aria-labelledby="server-title">
      <h2 id="server-title">Server</h2>
      {status.isPending && <Loading what="the server’s status" />}
      {status.isError && <ErrorNotice error={status.error} retry={() => void status.refetch()} />}
      {status.data && (
        <dl className="facts-list">
          <dt>Version</dt>
          <dd>
            {status.data.name} {status.data.version}
          </dd>
          <dt>Running for</dt>
          <dd>{formatUptime(status.data.uptime)}</dd>
          <dt>Library</dt>
          <dd>
            {status.data.library.shows} shows ({status.data.library.episodes} episodes), {status.data.library.movies}{' '}
            movies, {status.data.library.videos} videos, {status.data.library.collections} collections,{' '}
            {status.data.library.playlists} playlists
          </dd>
          <dt>DVR</dt>
          <dd>
            {status.data.library.channels} channels, {status.data.library.jobs} jobs
            {status.data.dvr
              ? `, ${status.data.dvr.recording.length} recording now${status.data.dvr.refreshing ? ', reading sources and guides' : ''}`
              : ''}
          </dd>
          {eventsLine(status.data.events) && (
            <>
              <dt>Telling</dt>
              <dd>{eventsLine(status.data.events)}</dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
