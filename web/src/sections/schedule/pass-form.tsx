/**
 * The pass form: a new pass of any type, or an existing one to change. The fields are
 * the rule's body (rule-form.ts turns them into it); what the form or the server finds
 * wrong is written beside the field it concerns, and at the top in words.
 */
import { setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { dvrQueries } from '../../api/dvr.queries';
import { useRuleChanges } from '../../api/dvr.mutations';
import { ApiError } from '../../api/http-client';
import type { RuleTypeName, StoredRule } from '../../api/server-types';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { CheckField, ChoiceField, TextField } from '../../components/form-fields';
import { FocusButton, FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import { type FormErrors, RULE_TYPE_HELP, RULE_TYPE_LABELS, type RuleForm, bodyOf, fieldOfParameter, formOf } from './rule-form';

const TYPES = (Object.keys(RULE_TYPE_LABELS) as RuleTypeName[]).map((value) => ({ value, label: RULE_TYPE_LABELS[value] }));

/** `/schedule/passes/$id`: the stored pass, in the form. */
export function EditPassPage({ id }: { id: string }) {
  const rules = useQuery(dvrQueries.rules());
  if (rules.isPending) return <Loading what="the pass" />;
  if (rules.isError) return <ErrorNotice error={rules.error} retry={() => void rules.refetch()} />;
  const rule = rules.data.find((r) => r.id === id);
  if (!rule) return <ErrorNotice error={new ApiError(404, 'not_found', `There is no pass ${id}: it may have been deleted. Choose one under Passes.`)} />;
  return <PassForm key={id} rule={rule} initial={formOf(rule)} />;
}

/** `/schedule/passes/new`: a blank form, or one the Guide filled in (`?type=series&title=...`). */
export function NewPassPage({ initial }: { initial: RuleForm }) {
  return <PassForm initial={initial} />;
}

function PassForm({ rule, initial }: { rule?: StoredRule; initial: RuleForm }) {
  const mode = useMode();
  const navigate = useNavigate();
  const changes = useRuleChanges();
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<FormErrors>({});
  useEffect(() => {
    void setFocus('pass-form');
  }, []);
  const set = <K extends keyof RuleForm>(key: K) => (value: RuleForm[K]) => {
    setForm((current) => ({ ...current, [key]: value }));
    // The server's complaint was about what is being changed now.
    if (changes.save.isError) changes.save.reset();
  };
  const serverError = changes.save.error;
  const serverField = serverError instanceof ApiError ? fieldOfParameter(serverError.parameter) : undefined;
  const errorOf = (field: keyof RuleForm) => errors[field] ?? (serverField === field ? serverError?.message : undefined);
  const submit = () => {
    const result = bodyOf(form);
    setErrors(result.errors ?? {});
    if (!result.body) return;
    changes.save.mutate({ id: rule?.id, body: result.body }, { onSuccess: () => void navigate({ to: '/{-$mode}/schedule/passes', params: { mode } }) });
  };
  const problems = Object.values(errors);
  return (
    <form
      className="pass-form"
      aria-labelledby="pass-form-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <h2 id="pass-form-title">{rule ? 'Edit pass' : 'New pass'}</h2>
      {problems.length > 0 && (
        <div className="notice notice-error" role="alert">
          <p>Check the fields marked below: {problems.join(' ')}</p>
        </div>
      )}
      {serverError && <ErrorNotice error={serverError} />}
      <FocusGroup focusKey="pass-form" className="form-grid">
        <ChoiceField label="Records" value={form.type} options={TYPES} onChange={set('type')} disabled={rule !== undefined} />
        <p className="field-hint type-help">{RULE_TYPE_HELP[form.type]}</p>
        <TypeFields form={form} set={set} errorOf={errorOf} />
        <TextField label="Name (optional)" value={form.name} onChange={set('name')} error={errorOf('name')} hint="Shown on its recordings’ jobs; what it records when empty." />
        <TextField label="Only from channels (optional)" value={form.channels} onChange={set('channels')} error={errorOf('channels')} hint="Channel numbers, such as 5, 7.1; any channel when empty." />
        <div className="field-row">
          <TextField label="Priority" inputMode="numeric" value={form.priority} onChange={set('priority')} error={errorOf('priority')} hint="Higher wins when tuners run out (default 0)." />
          <TextField label="Keep newest" inputMode="numeric" value={form.keep} onChange={set('keep')} error={errorOf('keep')} hint="Recordings kept; empty or 0: all." />
        </div>
        <div className="field-row">
          <TextField label="Start early (minutes)" inputMode="decimal" value={form.paddingBeforeMinutes} onChange={set('paddingBeforeMinutes')} error={errorOf('paddingBeforeMinutes')} />
          <TextField label="Keep recording after the end (minutes)" inputMode="decimal" value={form.paddingAfterMinutes} onChange={set('paddingAfterMinutes')} error={errorOf('paddingAfterMinutes')} />
        </div>
        {form.type !== 'slot' && form.type !== 'program' && <CheckField label="New episodes only" checked={form.newOnly} onChange={set('newOnly')} error={errorOf('newOnly')} />}
        <CheckField label="Paused (plans nothing)" checked={form.paused} onChange={set('paused')} error={errorOf('paused')} />
        <div className="actions">
          <FocusButton type="submit" className="primary" disabled={changes.save.isPending}>
            {rule ? 'Save pass' : 'Create pass'}
          </FocusButton>
          <FocusLink to="/{-$mode}/schedule/passes" params={{ mode }} className="button">
            Cancel
          </FocusLink>
        </div>
      </FocusGroup>
    </form>
  );
}

type Setter = <K extends keyof RuleForm>(key: K) => (value: RuleForm[K]) => void;

/** The fields of the chosen type. */
function TypeFields({ form, set, errorOf }: { form: RuleForm; set: Setter; errorOf: (field: keyof RuleForm) => string | undefined }) {
  switch (form.type) {
    case 'series':
      return (
        <>
          <TextField label="Series title" value={form.title} onChange={set('title')} error={errorOf('title')} hint="Exactly as the guide writes it (case ignored)." />
          <TextField label="Guide series id (optional)" value={form.seriesId} onChange={set('seriesId')} error={errorOf('seriesId')} />
        </>
      );
    case 'keyword':
      return <TextField label="Word or phrase" value={form.keyword} onChange={set('keyword')} error={errorOf('keyword')} hint="Found in a programme’s title or summary (case ignored)." />;
    case 'slot':
      return (
        <>
          <div className="field-row">
            <TextField label="Channel" inputMode="decimal" value={form.channel} onChange={set('channel')} error={errorOf('channel')} />
            <TextField label="Starts" type="datetime-local" step={60} value={form.start} onChange={set('start')} error={errorOf('start')} />
            <TextField label="Length (minutes)" inputMode="numeric" value={form.durationMinutes} onChange={set('durationMinutes')} error={errorOf('durationMinutes')} />
          </div>
          <CheckField label="Every week at this time" checked={form.weekly} onChange={set('weekly')} error={errorOf('weekly')} />
        </>
      );
    case 'program':
      return (
        <div className="field-row">
          <TextField label="Channel" inputMode="decimal" value={form.channel} onChange={set('channel')} error={errorOf('channel')} />
          <TextField label="Starts" type="datetime-local" step={60} value={form.start} onChange={set('start')} error={errorOf('start')} hint="The airing’s start, as the guide gives it." />
        </div>
      );
  }
}
