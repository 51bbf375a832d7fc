/**
 * Channel sources (M3U playlists, HDHomeRun tuners) and XMLTV guides: listed with how
 * their last read went, added, removed after asking, each read again with its own
 * Refresh (source-entry.tsx: a refresh held back for confirmation is applied there) and
 * all with Refresh now, whose outcome is listed line by line.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { dvrQueries } from '../../api/dvr.queries';
import { useSourceChanges } from '../../api/dvr.mutations';
import type { Guide, Source } from '../../api/server-types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { ChoiceField, TextField } from '../../components/form-fields';
import { FocusButton, FocusGroup } from '../../components/focusable';
import { GuidePriority } from './guide-priority';
import { guidePrefix, refreshLines } from './settings-view';
import { type RefreshAnswer, SourceEntry } from './source-entry';

type Removal = { kind: 'source'; entry: Source } | { kind: 'guide'; entry: Guide };

export function SourcesPanel() {
  const sources = useQuery(dvrQueries.sources());
  const guides = useQuery(dvrQueries.guides());
  const changes = useSourceChanges();
  const [removing, setRemoving] = useState<Removal | null>(null);
  // The last refresh answer seen for each source and guide (`source:<id>`, `guide:<id>`), from its own Refresh or
  // Refresh now.
  const [answers, setAnswers] = useState<ReadonlyMap<string, RefreshAnswer>>(new Map());
  const answered = (key: string, answer: RefreshAnswer) => setAnswers((before) => new Map(before).set(key, answer));
  // Refresh now lists what each read above; only a hold goes to its entry too, where Apply anyway is.
  const refreshAll = () =>
    changes.refresh.mutate(undefined, {
      onSuccess: (result) =>
        setAnswers((before) => {
          const after = new Map(before);
          const keep = (key: string, answer: RefreshAnswer) =>
            answer.needs_confirmation ? after.set(key, answer) : after.delete(key);
          for (const answer of result.sources) keep(`source:${answer.id}`, answer);
          for (const answer of result.guides) keep(`guide:${answer.id}`, answer);
          return after;
        }),
    });
  const refresh = changes.refresh;
  const removeError = changes.removeSource.error ?? changes.removeGuide.error;
  return (
    // One group for a remote: Down from the pages' tabs above enters it at Refresh now (its control nearest the top
    // left),
    // however narrow that is beside the panel's width.
    <FocusGroup as="section" className="panel" aria-labelledby="sources-title">
      <div className="section-head">
        <h2 id="sources-title">Channels and guide</h2>
        <FocusButton className="primary" onClick={refreshAll} disabled={refresh.isPending}>
          {refresh.isPending ? 'Refreshing…' : 'Refresh now'}
        </FocusButton>
      </div>
      {refresh.error && <ErrorNotice error={refresh.error} />}
      {refresh.data && (
        <div className="notice" role="status">
          <p>Refreshed:</p>
          <ul className="refresh-lines">
            {refreshLines(refresh.data, sources.data ?? [], guides.data ?? []).map((line, index) => (
              <li key={index} className={line.ok ? '' : 'refresh-failed'}>
                {line.name}: {line.text}
              </li>
            ))}
          </ul>
        </div>
      )}
      {removeError && <ErrorNotice error={removeError} />}
      <h3>Sources</h3>
      {sources.isPending && <Loading what="the sources" />}
      {sources.isError && <ErrorNotice error={sources.error} retry={() => void sources.refetch()} />}
      {sources.data?.length === 0 && (
        <p className="empty">No sources: add an M3U playlist or an HDHomeRun tuner to have channels.</p>
      )}
      <ul className="entry-list">
        {sources.data?.map((source) => (
          <SourceEntry
            key={source.id}
            kind="source"
            id={source.id}
            name={source.name}
            prefix={source.name}
            state={source}
            answer={answers.get(`source:${source.id}`)}
            onAnswer={(answer) => answered(`source:${source.id}`, answer)}
            onRemove={() => setRemoving({ kind: 'source', entry: source })}
          >
            <span className="entry-name">{source.name}</span>
            <span className="entry-kind">{source.kind === 'm3u' ? 'M3U' : 'HDHomeRun'}</span>
            <span className="entry-detail">
              {source.channels} {source.channels === 1 ? 'channel' : 'channels'} · {source.streams}{' '}
              {source.kind === 'm3u' ? 'streams at once' : 'tuners'}
              {source.skipped ? ` · ${source.skipped} malformed entries skipped` : ''}
              {source.origin === 'config' ? ' · from the server’s settings' : ''}
            </span>
            {!source.name.includes(source.location) && <span className="entry-location">{source.location}</span>}
          </SourceEntry>
        ))}
      </ul>
      <AddSourceForm />
      <h3>Guides</h3>
      {guides.isPending && <Loading what="the guides" />}
      {guides.isError && <ErrorNotice error={guides.error} retry={() => void guides.refetch()} />}
      {guides.data?.length === 0 && <p className="empty">No guide: add an XMLTV guide to plan recordings from it.</p>}
      <ul className="entry-list">
        {guides.data?.map((guide) => (
          <SourceEntry
            key={guide.id}
            kind="guide"
            id={guide.id}
            name={guide.location}
            prefix={guidePrefix(guide)}
            state={guide}
            answer={answers.get(`guide:${guide.id}`)}
            onAnswer={(answer) => answered(`guide:${guide.id}`, answer)}
            onRemove={() => setRemoving({ kind: 'guide', entry: guide })}
          >
            <span className="entry-name">{guide.location}</span>
            <span className="entry-kind">XMLTV</span>
            <span className="entry-detail">
              {guide.programmes} programmes{guide.skipped ? ` · ${guide.skipped} malformed entries skipped` : ''}
              {guide.origin === 'config' ? ' · from the server’s settings' : ''}
            </span>
            <GuidePriority guide={guide} several={(guides.data?.length ?? 0) > 1} />
          </SourceEntry>
        ))}
      </ul>
      <AddGuideForm />
      {removing && <RemoveDialog removal={removing} changes={changes} onDone={() => setRemoving(null)} />}
    </FocusGroup>
  );
}

function RemoveDialog({
  removal,
  changes,
  onDone,
}: {
  removal: Removal;
  changes: ReturnType<typeof useSourceChanges>;
  onDone: () => void;
}) {
  const isSource = removal.kind === 'source';
  const name = isSource ? removal.entry.name : removal.entry.location;
  const back =
    removal.entry.origin === 'config'
      ? ' It comes from the server’s settings, so it comes back at the next start unless removed there too.'
      : '';
  const what = isSource
    ? 'Its channels leave the channel list, and recordings planned on them are planned again without them.'
    : 'Its programmes leave the guide, and passes plan from the other guides.';
  const mutation = isSource ? changes.removeSource : changes.removeGuide;
  return (
    <ConfirmDialog
      title={isSource ? 'Remove this source?' : 'Remove this guide?'}
      body={`“${name}”: ${what}${back}`}
      confirm="Remove"
      busy={mutation.isPending}
      onCancel={onDone}
      onConfirm={() => mutation.mutate(removal.entry.id, { onSettled: onDone })}
    />
  );
}

function AddSourceForm() {
  const changes = useSourceChanges();
  const [kind, setKind] = useState<'m3u' | 'hdhomerun'>('m3u');
  const [location, setLocation] = useState('');
  const [streams, setStreams] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const add = changes.addSource;
  const submit = () => {
    const count = streams.trim() === '' ? undefined : Number(streams);
    if (!location.trim())
      return setProblem(
        kind === 'm3u' ? 'Give the playlist’s URL or file path.' : 'Give the tuner’s address, such as 192.168.1.20.',
      );
    if (count !== undefined && !(Number.isInteger(count) && count >= 1 && count <= 64))
      return setProblem('Streams at once is a whole number from 1 to 64.');
    setProblem(undefined);
    add.mutate(
      { kind, location: location.trim(), ...(kind === 'm3u' && count !== undefined ? { streams: count } : {}) },
      { onSuccess: () => setLocation('') },
    );
  };
  return (
    <form
      className="add-form"
      aria-label="Add a source"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <ChoiceField
        label="Add a source"
        value={kind}
        options={[
          { value: 'm3u', label: 'M3U playlist' },
          { value: 'hdhomerun', label: 'HDHomeRun tuner' },
        ]}
        onChange={setKind}
      />
      <div className="field-row">
        <TextField
          label={kind === 'm3u' ? 'Playlist URL or file path' : 'Tuner address'}
          value={location}
          onChange={setLocation}
          error={problem}
          hint={
            kind === 'm3u'
              ? 'A file must be in a folder the server allows (--allow-local-source).'
              : 'A host, host:port or URL.'
          }
        />
        {kind === 'm3u' && (
          <TextField
            label="Streams at once"
            inputMode="numeric"
            value={streams}
            onChange={setStreams}
            hint="What the provider allows (default 2)."
          />
        )}
      </div>
      {add.error && <ErrorNotice error={add.error} />}
      <FocusButton type="submit" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add source'}
      </FocusButton>
    </form>
  );
}

function AddGuideForm() {
  const changes = useSourceChanges();
  const [location, setLocation] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const add = changes.addGuide;
  return (
    <form
      className="add-form"
      aria-label="Add a guide"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (!location.trim()) return setProblem('Give the guide’s URL or file path.');
        setProblem(undefined);
        add.mutate(location.trim(), { onSuccess: () => setLocation('') });
      }}
    >
      <TextField
        label="Add an XMLTV guide: URL or file path"
        value={location}
        onChange={setLocation}
        error={problem}
        hint="gzip files too; a file must be in a folder the server allows."
      />
      {add.error && <ErrorNotice error={add.error} />}
      <FocusButton type="submit" disabled={add.isPending}>
        {add.isPending ? 'Reading the guide…' : 'Add guide'}
      </FocusButton>
    </form>
  );
}
