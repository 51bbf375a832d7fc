/**
 * The library's import folders and their scan: what the importer does now (phase,
 * files seen, files read), how the last scan went and what it could not import, and
 * Scan now.
 */
import { useQuery } from '@tanstack/react-query';
import { dvrQueries } from '../../api/dvr.queries';
import { useSourceChanges } from '../../api/dvr.mutations';
import { libraryQueries } from '../../api/library.queries';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton } from '../../components/focusable';
import { lastScan, scanProgress, scanShare } from './settings-view';

const KIND_LABELS: Record<string, string> = { tv: 'TV shows', movies: 'Movies', videos: 'Videos' };

export function LibraryPanel() {
  const info = useQuery(dvrQueries.info());
  // Faster while a scan runs, so its counts move.
  const status = useQuery({
    ...libraryQueries.status(),
    refetchInterval: (query) => (query.state.data?.scan?.running ? 1_000 : 10_000),
  });
  const scan = useSourceChanges().scan;
  const roots = info.data?.roots ?? [];
  const state = status.data?.scan;
  const share = state ? scanShare(state) : undefined;
  return (
    <section className="panel" aria-labelledby="library-title">
      <div className="section-head">
        <h2 id="library-title">Library folders</h2>
        <FocusButton onClick={() => scan.mutate()} disabled={scan.isPending || roots.length === 0}>
          Scan now
        </FocusButton>
      </div>
      {scan.error && <ErrorNotice error={scan.error} />}
      {scan.data && (
        <p className="notice" role="status">
          Scan queued for {scan.data.roots.length === 1 ? 'one folder' : `${scan.data.roots.length} folders`}; its
          progress shows below.
        </p>
      )}
      {info.isPending && <Loading what="the folders" />}
      {info.isError && <ErrorNotice error={info.error} retry={() => void info.refetch()} />}
      {info.data && roots.length === 0 && (
        <p className="empty">No import folders: start the server with --tv, --movies or --videos to import your own.</p>
      )}
      <ul className="entry-list">
        {roots.map((root) => (
          <li key={`${root.kind}:${root.path}`} className="entry">
            <div className="entry-what">
              <span className="entry-kind">{KIND_LABELS[root.kind] ?? root.kind}</span>
              <span className="entry-location">{root.path}</span>
            </div>
          </li>
        ))}
      </ul>
      {status.isError && <ErrorNotice error={status.error} retry={() => void status.refetch()} />}
      {state && (
        <div className="scan-state">
          <p className={state.running ? 'scan-running' : ''}>{scanProgress(state)}</p>
          {share !== undefined && (
            <div
              className="bar"
              role="progressbar"
              aria-label={state?.phase === 'thumbnails' ? 'Thumbnails made' : 'Files read'}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(share * 100)}
            >
              <span style={{ width: `${share * 100}%` }} />
            </div>
          )}
          <p className="muted">{lastScan(state)}</p>
          {(state.last?.problems.length ?? 0) > 0 && (
            <details>
              <summary>What the last scan could not import</summary>
              <ul className="problems">
                {state.last!.problems.map((problem) => (
                  <li key={problem.path}>
                    <code>{problem.path}</code>: {problem.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {state.not_media.count > 0 && (
            <p className="muted">
              {state.not_media.count} files in the library could not be read as media and are not served.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
