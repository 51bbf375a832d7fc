/**
 * Channel collections: the favorites (the starred channels, shown, not edited here) and
 * collections of the user's own, each a name and the channels ticked for it. Remote apps
 * read them at GET /dvr/collections/channels.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { channelCollectionQueries, useChannelCollectionChanges } from '../../api/channel-collections.queries';
import { libraryQueries } from '../../api/library.queries';
import type { ChannelCollection } from '../../api/server-types';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusGroup } from '../../components/focusable';
import { CheckField, TextField } from '../../components/form-fields';
import { collectionSummary } from './settings-view';

interface Draft {
  id?: string;
  name: string;
  items: string[];
}

export function ChannelCollectionsPanel() {
  const collections = useQuery(channelCollectionQueries.list());
  const { remove } = useChannelCollectionChanges();
  const [draft, setDraft] = useState<Draft | undefined>();
  return (
    <section className="panel" aria-labelledby="collections-title">
      <div className="section-head">
        <h2 id="collections-title">Channel collections</h2>
        {!draft && <FocusButton onClick={() => setDraft({ name: '', items: [] })}>New collection</FocusButton>}
      </div>
      {collections.isPending && <Loading what="the channel collections" />}
      {collections.isError && <ErrorNotice error={collections.error} retry={() => void collections.refetch()} />}
      {remove.isError && <ErrorNotice error={remove.error} />}
      <ul className="entry-list">
        {collections.data?.map((collection) => (
          <CollectionEntry
            key={collection.id}
            collection={collection}
            onEdit={() => setDraft({ id: collection.id, name: collection.name, items: [...collection.items] })}
            onRemove={() => remove.mutate(collection.id)}
          />
        ))}
      </ul>
      {draft && <CollectionForm draft={draft} onChange={setDraft} onDone={() => setDraft(undefined)} />}
    </section>
  );
}

function CollectionEntry({
  collection,
  onEdit,
  onRemove,
}: {
  collection: ChannelCollection;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const favorites = collection.id === 'favorites';
  return (
    <li className="entry">
      <div className="entry-what">
        <span className="entry-name">{collection.name}</span>
        <span className="muted">{collectionSummary(collection.items, favorites)}</span>
      </div>
      {!favorites && (
        <div className="entry-actions">
          <FocusButton onClick={onEdit} aria-label={`Edit ${collection.name}`}>
            Edit
          </FocusButton>
          <FocusButton className="danger" onClick={onRemove} aria-label={`Remove ${collection.name}`}>
            Remove
          </FocusButton>
        </div>
      )}
    </li>
  );
}

function CollectionForm({
  draft,
  onChange,
  onDone,
}: {
  draft: Draft;
  onChange: (draft: Draft) => void;
  onDone: () => void;
}) {
  const channels = useQuery(libraryQueries.channels());
  const { save } = useChannelCollectionChanges();
  const toggle = (number: string, on: boolean) =>
    onChange({ ...draft, items: on ? [...draft.items, number] : draft.items.filter((item) => item !== number) });
  return (
    <form
      className="add-form"
      aria-label={draft.id ? `Edit ${draft.name}` : 'New channel collection'}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(
          { ...(draft.id ? { id: draft.id } : {}), body: { name: draft.name, items: draft.items } },
          { onSuccess: onDone },
        );
      }}
    >
      <TextField label="Name" value={draft.name} onChange={(name) => onChange({ ...draft, name })} />
      {channels.isError && <ErrorNotice error={channels.error} retry={() => void channels.refetch()} />}
      <FocusGroup className="collection-channels" aria-label="Channels in the collection">
        {channels.data?.map((channel) => (
          <CheckField
            key={channel.number}
            label={`${channel.number} ${channel.name}`}
            checked={draft.items.includes(String(channel.number))}
            onChange={(on) => toggle(String(channel.number), on)}
          />
        ))}
      </FocusGroup>
      {save.isError && <ErrorNotice error={save.error} />}
      <div className="actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          Save collection
        </button>
        <FocusButton onClick={onDone}>Cancel</FocusButton>
      </div>
    </form>
  );
}
