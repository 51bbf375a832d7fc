/**
 * Passes: the recording rules, each with what it records, its options, and its next
 * job; paused or resumed in one press, edited in the pass form, deleted after asking
 * (its recordings stay).
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { dvrQueries } from '../../api/dvr.queries';
import { useRuleChanges } from '../../api/dvr.mutations';
import type { Job, RuleTypeInfo, StoredRule } from '../../api/server-types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { FocusButton, FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { formatAiring } from '../../lib/item-view';
import { ruleIdOfJob } from './job-days';
import { bodyOfStored, describeRule, ruleOptionPhrases, typeNamed } from './rule-form';
import { jobsQuery } from './upcoming-page';

/** A pass's own name, else what it records (as its type in the server's table says it). */
export const passTitle = (rule: StoredRule, info: RuleTypeInfo | undefined) =>
  rule.name ?? describeRule(rule, info, formatAiring);

export function PassesPage() {
  const mode = useMode();
  const rules = useQuery(dvrQueries.rules());
  const types = useQuery(dvrQueries.ruleTypes());
  const jobs = useQuery(jobsQuery());
  const changes = useRuleChanges();
  const [deleting, setDeleting] = useState<StoredRule | null>(null);
  if (rules.isPending) return <Loading what="the passes" />;
  if (rules.isError) return <ErrorNotice error={rules.error} retry={() => void rules.refetch()} />;
  // Without the table the passes are still listed, by their type's name.
  const infoOf = (rule: StoredRule) => typeNamed(types.data ?? [], rule.type);
  const now = Math.floor(Date.now() / 1000);
  const failure = changes.save.error ?? changes.remove.error;
  return (
    <div className="passes">
      <div className="section-head">
        <h2>Passes</h2>
        <FocusLink to="/{-$mode}/schedule/passes/new" params={{ mode }} className="button primary">
          New pass
        </FocusLink>
      </div>
      {failure && <ErrorNotice error={failure} />}
      {rules.data.length === 0 && (
        <p className="empty">
          No passes yet. A pass records a series, a keyword, a time slot or one airing, from the guide.
        </p>
      )}
      <ul className="pass-list">
        {rules.data.map((rule) => (
          <PassRow
            key={rule.id}
            rule={rule}
            info={infoOf(rule)}
            jobs={(jobs.data ?? []).filter((job) => ruleIdOfJob(job.id) === rule.id && (job.end_time ?? 0) > now)}
            busy={changes.save.isPending}
            onPause={() => changes.save.mutate({ id: rule.id, body: { ...bodyOfStored(rule), paused: !rule.paused } })}
            onDelete={() => setDeleting(rule)}
          />
        ))}
      </ul>
      {deleting && (
        <ConfirmDialog
          title="Delete this pass?"
          body={`“${passTitle(deleting, infoOf(deleting))}” will plan no more recordings. What it recorded stays in the library; a recording in progress goes on to its end.`}
          confirm="Delete pass"
          busy={changes.remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() => changes.remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
        />
      )}
    </div>
  );
}

function PassRow({
  rule,
  info,
  jobs,
  busy,
  onPause,
  onDelete,
}: {
  rule: StoredRule;
  info: RuleTypeInfo | undefined;
  jobs: Job[];
  busy: boolean;
  onPause: () => void;
  onDelete: () => void;
}) {
  const mode = useMode();
  const title = passTitle(rule, info);
  const planned = jobs.filter((job) => !job.skipped).sort((a, b) => (a.start_time ?? 0) - (b.start_time ?? 0));
  const skipped = jobs.length - planned.length;
  const next = planned[0];
  const options = ruleOptionPhrases(rule);
  const summary = rule.paused
    ? 'Paused: plans nothing until resumed.'
    : next
      ? `Next: ${formatAiring(next.start_time ?? 0)}${next.channel ? ` on channel ${next.channel}` : ''} · ${planned.length} planned${skipped ? `, ${skipped} skipped` : ''}`
      : `Nothing planned${skipped ? ` (${skipped} skipped)` : ' in the guide now'}.`;
  return (
    <li className={`pass${rule.paused ? ' pass-paused' : ''}`}>
      <div className="pass-what">
        <span className="pass-type">{info?.label ?? rule.type}</span>
        <span className="pass-name">{title}</span>
        {rule.name && <span className="pass-detail">{describeRule(rule, info, formatAiring)}</span>}
        {options.length > 0 && <span className="pass-detail">{options.join(' · ')}</span>}
        <span className="pass-next">{summary}</span>
      </div>
      <FocusGroup className="actions" aria-label={`${title}: actions`} role="group">
        <FocusLink
          to="/{-$mode}/schedule/passes/$id"
          params={{ mode, id: rule.id }}
          className="button"
          aria-label={`Edit ${title}`}
        >
          Edit
        </FocusLink>
        <FocusButton onClick={onPause} disabled={busy} aria-label={`${rule.paused ? 'Resume' : 'Pause'} ${title}`}>
          {rule.paused ? 'Resume' : 'Pause'}
        </FocusButton>
        <FocusButton className="danger" onClick={onDelete} aria-label={`Delete ${title}`}>
          Delete
        </FocusButton>
      </FocusGroup>
    </li>
  );
}
