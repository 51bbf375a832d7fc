/**
 * Settings → Channels: the lineup as the user shapes it. Every channel, hidden ones too,
 * with its number and name edited in place, hidden or shown, made a favorite, and where
 * the user changed what the source offers, the source's value and Reset. A filter by
 * group, by what is shown and by number or name; for a group, Hide group, Show group and
 * Renumber from… Edits are the server's (GET /dvr/lineup): they stay across every
 * refresh of the source. What each change did, or why it was refused (a number another
 * channel has, say), is said at the foot of the window, where it is seen wherever the
 * list is scrolled to.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useId, useRef, useState } from 'react';
import { type GroupAction, lineupQueries, useLineupChanges } from '../../api/lineup.queries';
import type { LineupChannel, LineupGroup } from '../../api/server-types';
import { describeError, ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusGroup } from '../../components/focusable';
import { ChoiceField, TextField } from '../../components/form-fields';
import { type EditableField, type Follow, LineupList, type SaveChange } from './lineup-list';
import {
  channelLabel,
  describeChange,
  describeGroupChange,
  filterChannels,
  groupLabel,
  lineupCount,
  parseStart,
  type Shown,
} from './lineup-view';
import './lineup.css';

const ALL = '\u0000all';

interface Problem {
  id: string;
  field: EditableField;
  channel: string;
  error: unknown;
}

export function LineupPage() {
  const channels = useQuery(lineupQueries.channels());
  const groups = useQuery(lineupQueries.groups());
  const changes = useLineupChanges();
  const [text, setText] = useState('');
  const [shown, setShown] = useState<Shown>('all');
  const [group, setGroup] = useState<string>(ALL);
  const [problem, setProblem] = useState<Problem | undefined>();
  const [said, setSaid] = useState<string | undefined>();
  const [follow, setFollow] = useState<Follow | undefined>();
  const messageId = useId();
  const list = channels.data ?? [];
  const filtered = filterChannels(list, { group: group === ALL ? undefined : group, shown, text });
  const shownNow = useRef(filtered);
  shownNow.current = filtered;
  const { mutateAsync } = changes.edit;
  // Stable, so the list's rows (memoized) render again only when their channel does.
  const save: SaveChange = useCallback(
    async (channel, change, field) => {
      const index = shownNow.current.findIndex((entry) => entry.id === channel.id);
      try {
        const after = await mutateAsync({ id: channel.id, change });
        setProblem(undefined);
        setSaid(describeChange(channel, after, field));
        // A new number moves the row; hiding or showing may take it out of the filter: the focus follows it.
        if (field === 'number' || field === 'hidden') setFollow({ id: channel.id, field, index: Math.max(0, index) });
        return true;
      } catch (error) {
        setSaid(undefined);
        setProblem({ id: channel.id, field, channel: channelLabel(channel), error });
        return false;
      }
    },
    [mutateAsync],
  );
  const chosen = groups.data?.find((entry) => entry.name === group);
  return (
    <section className="lineup" aria-labelledby="lineup-title">
      <div className="section-head">
        <h1 id="lineup-title" className="page-title">
          Channels
        </h1>
        {channels.data && <span className="muted">{lineupCount(list)}</span>}
      </div>
      <p className="muted lineup-hint">
        Choose a number or a name to change it: Enter saves, Escape cancels. Your changes stay when the source is read
        again.
      </p>
      <FocusGroup className="lineup-filters">
        <TextField label="Find a channel" value={text} onChange={setText} placeholder="A number or a name" />
        <ChoiceField<Shown>
          label="Show"
          value={shown}
          onChange={setShown}
          options={[
            { value: 'all', label: 'All' },
            { value: 'visible', label: 'Shown' },
            { value: 'hidden', label: 'Hidden' },
            { value: 'favorites', label: 'Favorites' },
          ]}
        />
      </FocusGroup>
      {groups.isError && <ErrorNotice error={groups.error} retry={() => void groups.refetch()} />}
      {(groups.data?.length ?? 0) > 0 && (
        <ChoiceField
          label="Group"
          value={group}
          onChange={setGroup}
          options={[
            { value: ALL, label: 'Every group' },
            ...(groups.data ?? []).map((entry) => ({ value: entry.name, label: `${entry.name} (${entry.channels})` })),
          ]}
        />
      )}
      {chosen && <GroupActions key={chosen.name} group={chosen} mutation={changes.group} onDone={setSaid} />}
      {channels.isPending && <Loading what="the channels" />}
      {channels.isError && <ErrorNotice error={channels.error} retry={() => void channels.refetch()} />}
      {channels.data?.length === 0 && (
        <p className="empty">No channels yet: add an M3U playlist or an HDHomeRun tuner under Sources and library.</p>
      )}
      {list.length > 0 && filtered.length === 0 && <p className="empty">No channel matches these filters.</p>}
      <LineupList
        channels={filtered}
        save={save}
        problem={problem && { id: problem.id, field: problem.field, messageId }}
        follow={follow}
        onFollowed={() => setFollow(undefined)}
      />
      <div className="lineup-status">
        {problem ? (
          <div id={messageId} className="notice notice-error" role="alert">
            <p>
              Not saved ({problem.channel}): {describeError(problem.error)}
            </p>
            <FocusButton onClick={() => setProblem(undefined)}>Dismiss</FocusButton>
          </div>
        ) : (
          said && (
            <p className="notice" role="status">
              {said}
            </p>
          )
        )}
      </div>
    </section>
  );
}

type GroupMutation = ReturnType<typeof useLineupChanges>['group'];

/** A chosen group's bulk changes: Hide group, Show group, and Renumber from… (its visible channels, in their order). */
function GroupActions({
  group,
  mutation,
  onDone,
}: {
  group: LineupGroup;
  mutation: GroupMutation;
  onDone: (said: string) => void;
}) {
  const [renumbering, setRenumbering] = useState(false);
  const [start, setStart] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const run = (action: GroupAction, then?: () => void) =>
    mutation.mutate(action, {
      onSuccess: (channels: LineupChannel[]) => {
        onDone(
          describeGroupChange(
            group.name,
            action.action,
            channels,
            action.action === 'renumber' ? action.start : undefined,
          ),
        );
        then?.();
      },
    });
  const renumber = () => {
    const parsed = parseStart(start);
    if ('problem' in parsed) return setProblem(parsed.problem);
    setProblem(undefined);
    run({ group: group.name, action: 'renumber', start: parsed.start }, () => setRenumbering(false));
  };
  return (
    <div className="lineup-group-actions">
      <p className="lineup-group-label">{groupLabel(group)}</p>
      <FocusGroup className="actions">
        <FocusButton
          onClick={() => run({ group: group.name, action: 'hide' })}
          disabled={mutation.isPending || group.hidden === group.channels}
          aria-label={`Hide group ${group.name}`}
        >
          Hide group
        </FocusButton>
        <FocusButton
          onClick={() => run({ group: group.name, action: 'show' })}
          disabled={mutation.isPending || group.hidden === 0}
          aria-label={`Show group ${group.name}`}
        >
          Show group
        </FocusButton>
        <FocusButton
          onClick={() => setRenumbering(!renumbering)}
          aria-expanded={renumbering}
          aria-label={`Renumber from… group ${group.name}`}
        >
          Renumber from…
        </FocusButton>
      </FocusGroup>
      {renumbering && (
        <form
          className="lineup-renumber"
          aria-label={`Renumber ${group.name}`}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            renumber();
          }}
        >
          <TextField
            label="First number"
            inputMode="numeric"
            value={start}
            onChange={setStart}
            error={problem}
            hint={`Its ${group.channels - group.hidden} shown channels are numbered from it, in their order; passes follow them.`}
          />
          <div className="actions">
            <FocusButton type="submit" className="primary" disabled={mutation.isPending}>
              {mutation.isPending ? 'Renumbering…' : 'Renumber'}
            </FocusButton>
            <FocusButton onClick={() => setRenumbering(false)}>Cancel</FocusButton>
          </div>
        </form>
      )}
      {mutation.error && <ErrorNotice error={mutation.error} />}
    </div>
  );
}
