/**
 * Webhooks: the URLs events are POSTed to, each with the kinds it wants and a secret to
 * sign with, its health (a failing receiver says why), and its delivery log. Those from
 * --webhook or the config file are shown, changed only there.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { EventKind, Webhook } from '../../api/server-types';
import { useWebhookChanges, webhookQueries } from '../../api/webhooks.queries';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusGroup } from '../../components/focusable';
import { CheckField, TextField } from '../../components/form-fields';
import { ago } from './settings-view';
import { EVENT_KIND_LIST, KIND_LABELS, deliveryText, healthText, kindsSummary } from './webhook-view';

interface Draft {
  url: string;
  secret: string;
  kinds: EventKind[];
}

export function WebhooksPanel() {
  const hooks = useQuery(webhookQueries.list());
  const { save, remove } = useWebhookChanges();
  const [draft, setDraft] = useState<Draft | undefined>();
  return (
    <section className="panel" aria-labelledby="webhooks-title">
      <div className="section-head">
        <h2 id="webhooks-title">Webhooks</h2>
        {!draft && <FocusButton onClick={() => setDraft({ url: '', secret: '', kinds: [] })}>Add webhook</FocusButton>}
      </div>
      <p className="muted">
        Each event (a recording that failed, a disk filling up, a player going offline) is POSTed as JSON to these URLs,
        such as a Home Assistant webhook trigger.
      </p>
      {hooks.isPending && <Loading what="the webhooks" />}
      {hooks.isError && <ErrorNotice error={hooks.error} retry={() => void hooks.refetch()} />}
      {hooks.data?.length === 0 && !draft && <p className="empty">No webhooks yet.</p>}
      {remove.isError && <ErrorNotice error={remove.error} />}
      {save.isError && !draft && <ErrorNotice error={save.error} />}
      <ul className="entry-list">
        {hooks.data?.map((hook) => (
          <WebhookEntry
            key={hook.id}
            hook={hook}
            onPause={() =>
              save.mutate({ id: hook.id, body: { url: hook.url, kinds: hook.kinds, enabled: !hook.enabled } })
            }
            onRemove={() => remove.mutate(hook.id)}
          />
        ))}
      </ul>
      {draft && <WebhookForm draft={draft} onChange={setDraft} onDone={() => setDraft(undefined)} />}
    </section>
  );
}

function WebhookEntry({ hook, onPause, onRemove }: { hook: Webhook; onPause: () => void; onRemove: () => void }) {
  const [open, setOpen] = useState(false);
  const failing = hook.enabled && hook.health === 'failing';
  return (
    <li className="entry webhook-entry">
      <div className="entry-what">
        <span className="entry-name webhook-url">{hook.url}</span>
        <span className="muted">
          {kindsSummary(hook.kinds)}
          {hook.has_secret ? ' · signed' : ''}
          {hook.origin === 'config' ? ' · from the config file' : ''}
        </span>
        <span className={failing ? 'webhook-health failing' : 'webhook-health'}>{healthText(hook)}</span>
        {open && <DeliveryLog id={hook.id} />}
      </div>
      <div className="entry-actions">
        <FocusButton onClick={() => setOpen(!open)} aria-expanded={open} aria-label={`Deliveries to ${hook.url}`}>
          Deliveries
        </FocusButton>
        {hook.origin === 'managed' && (
          <>
            <FocusButton onClick={onPause} aria-label={`${hook.enabled ? 'Pause' : 'Resume'} ${hook.url}`}>
              {hook.enabled ? 'Pause' : 'Resume'}
            </FocusButton>
            <FocusButton className="danger" onClick={onRemove} aria-label={`Remove ${hook.url}`}>
              Remove
            </FocusButton>
          </>
        )}
      </div>
    </li>
  );
}

function DeliveryLog({ id }: { id: number }) {
  const log = useQuery(webhookQueries.deliveries(id));
  if (log.isPending) return <Loading what="the deliveries" />;
  if (log.isError) return <ErrorNotice error={log.error} retry={() => void log.refetch()} />;
  if (log.data.length === 0) return <p className="muted">Nothing sent yet.</p>;
  return (
    <ol className="delivery-log" aria-label="Recent deliveries">
      {log.data.map((delivery) => (
        <li key={delivery.id} className={`delivery ${delivery.state}`}>
          <span>{KIND_LABELS[delivery.kind]}</span> <span className="muted">{ago(delivery.created_at)}</span>{' '}
          <span>{deliveryText(delivery)}</span>
        </li>
      ))}
    </ol>
  );
}

function WebhookForm({ draft, onChange, onDone }: { draft: Draft; onChange: (d: Draft) => void; onDone: () => void }) {
  const { save } = useWebhookChanges();
  const toggle = (kind: EventKind, on: boolean) =>
    onChange({ ...draft, kinds: on ? [...draft.kinds, kind] : draft.kinds.filter((k) => k !== kind) });
  return (
    <form
      className="add-form"
      aria-label="New webhook"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(
          { body: { url: draft.url, kinds: draft.kinds, ...(draft.secret ? { secret: draft.secret } : {}) } },
          { onSuccess: onDone },
        );
      }}
    >
      <TextField
        label="URL"
        value={draft.url}
        onChange={(url) => onChange({ ...draft, url })}
        placeholder="http://homeassistant.local:8123/api/webhook/antenna"
      />
      <TextField
        label="Secret (optional)"
        type="password"
        autoComplete="off"
        value={draft.secret}
        onChange={(secret) => onChange({ ...draft, secret })}
        hint="Each POST is then signed: X-Antenna-Signature-256 is sha256= and the HMAC of the body."
      />
      <FocusGroup className="collection-channels" aria-label="Events to send (none ticked: every event)">
        {EVENT_KIND_LIST.map((kind) => (
          <CheckField
            key={kind}
            label={KIND_LABELS[kind]}
            checked={draft.kinds.includes(kind)}
            onChange={(on) => toggle(kind, on)}
          />
        ))}
      </FocusGroup>
      {save.isError && <ErrorNotice error={save.error} />}
      <div className="actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          Save webhook
        </button>
        <FocusButton onClick={onDone}>Cancel</FocusButton>
      </div>
    </form>
  );
}
