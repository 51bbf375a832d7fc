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
import type { RuleTypeInfo, StoredRule } from '../../api/server-types';
import { ErrorNotice, Loading } from '../../components/error-notice';
import { CheckField, ChoiceField, TextField } from '../../components/form-fields';
import { FocusButton, FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import {
  type FormErrors,
  type FormField,
  type PassSearch,
  type RuleForm,
  bodyOf,
  emptyForm,
  fieldOfParameter,
  formOf,
  formOfSearch,
  typeField,
  typeNamed,
} from './rule-form';

/** `/schedule/passes/$id`: the stored pass, in the form of its type. */
export function EditPassPage({ id }: { id: string }) {
  const rules = useQuery(dvrQueries.rules());
  const types = useQuery(dvrQueries.ruleTypes());
  if (rules.isPending || types.isPending) return <Loading what="the pass" />;
  if (rules.isError) return <ErrorNotice error={rules.error} retry={() => void rules.refetch()} />;
  if (types.isError) return <ErrorNotice error={types.error} retry={() => void types.refetch()} />;
  const rule = rules.data.find((r) => r.id === id);
  if (!rule)
    return (
      <ErrorNotice
        error={
          new ApiError(404, 'not_found', `There is no pass ${id}: it may have been deleted. Choose one under Passes.`)
        }
      />
    );
  const info = typeNamed(types.data, rule.type);
  if (!info)
    return (
      <ErrorNotice
        error={
          new ApiError(
            409,
            'unknown_rule_type',
            `This server does not list passes of type “${rule.type}”: it cannot be edited here.`,
          )
        }
      />
    );
  return <PassForm key={id} rule={rule} types={types.data} initial={formOf(rule, info)} />;
}

/** `/schedule/passes/new`: a blank form, or one the Guide filled in (`?type=series&title=...`). */
export function NewPassPage({ search }: { search: PassSearch }) {
  const types = useQuery(dvrQueries.ruleTypes());
  if (types.isPending) return <Loading what="the kinds of pass" />;
  if (types.isError) return <ErrorNotice error={types.error} retry={() => void types.refetch()} />;
  return <PassForm types={types.data} initial={formOfSearch(search, types.data)} />;
}

/** The form of another type: its own fields, keeping the values of fields both types have, and the options. */
function retyped(form: RuleForm, info: RuleTypeInfo): RuleForm {
  const fresh = emptyForm(info);
  const fields = Object.fromEntries(
    Object.entries(fresh.fields).map(([name, empty]) => [
      name,
      typeof form.fields[name] === typeof empty ? (form.fields[name] ?? empty) : empty,
    ]),
  );
  return { ...form, type: info.type, fields };
}

function PassForm({ rule, types, initial }: { rule?: StoredRule; types: RuleTypeInfo[]; initial: RuleForm }) {
  const mode = useMode();
  const navigate = useNavigate();
  const changes = useRuleChanges();
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<FormErrors>({});
  useEffect(() => {
    void setFocus('pass-form');
  }, []);
  const info = typeNamed(types, form.type) ?? (types[0] as RuleTypeInfo);
  const changed = (next: (current: RuleForm) => RuleForm) => {
    setForm(next);
    // The server's complaint was about what is being changed now.
    if (changes.save.isError) changes.save.reset();
  };
  const set =
    <K extends keyof RuleForm>(key: K) =>
    (value: RuleForm[K]) =>
      changed((current) => ({ ...current, [key]: value }));
  const setField = (name: string) => (value: string | boolean) =>
    changed((current) => ({ ...current, fields: { ...current.fields, [name]: value } }));
  const serverError = changes.save.error;
  const serverField = serverError instanceof ApiError ? fieldOfParameter(serverError.parameter, info) : undefined;
  const errorOf = (field: FormField) => errors[field] ?? (serverField === field ? serverError?.message : undefined);
  const submit = () => {
    const result = bodyOf(form, info);
    setErrors(result.errors ?? {});
    if (!result.body) return;
    changes.save.mutate(
      { id: rule?.id, body: result.body },
      { onSuccess: () => void navigate({ to: '/{-$mode}/schedule/passes', params: { mode } }) },
    );
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
        <ChoiceField
          label="Records"
          value={info.type}
          options={types.map((type) => ({ value: type.type, label: type.label }))}
          onChange={(name) => changed((current) => retyped(current, typeNamed(types, name) ?? info))}
          disabled={rule !== undefined}
        />
        <p className="field-hint type-help">{info.help}</p>
        <TypeFields info={info} form={form} setField={setField} errorOf={errorOf} />
        <TextField
          label="Name (optional)"
          value={form.name}
          onChange={set('name')}
          error={errorOf('name')}
          hint="Shown on its recordings’ jobs; what it records when empty."
        />
        <TextField
          label="Only from channels (optional)"
          value={form.channels}
          onChange={set('channels')}
          error={errorOf('channels')}
          hint="Channel numbers, such as 5, 7.1; any channel when empty."
        />
        <div className="field-row">
          <TextField
            label="Priority"
            inputMode="numeric"
            value={form.priority}
            onChange={set('priority')}
            error={errorOf('priority')}
            hint="Higher wins when tuners run out (default 0)."
          />
          <TextField
            label="Keep newest"
            inputMode="numeric"
            value={form.keep}
            onChange={set('keep')}
            error={errorOf('keep')}
            hint="Recordings kept; empty or 0: all."
          />
        </div>
        <div className="field-row">
          <TextField
            label="Start early (minutes)"
            inputMode="decimal"
            value={form.paddingBeforeMinutes}
            onChange={set('paddingBeforeMinutes')}
            error={errorOf('paddingBeforeMinutes')}
          />
          <TextField
            label="Keep recording after the end (minutes)"
            inputMode="decimal"
            value={form.paddingAfterMinutes}
            onChange={set('paddingAfterMinutes')}
            error={errorOf('paddingAfterMinutes')}
          />
        </div>
        {!info.records_by_time && (
          <CheckField
            label="New episodes only"
            checked={form.newOnly}
            onChange={set('newOnly')}
            error={errorOf('newOnly')}
          />
        )}
        <CheckField
          label="Paused (plans nothing)"
          checked={form.paused}
          onChange={set('paused')}
          error={errorOf('paused')}
        />
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

/** How each kind of field is typed in (the kinds the server's table names). */
const INPUT_PROPS = {
  text: {},
  channel: { inputMode: 'decimal' },
  time: { type: 'datetime-local', step: 60 },
  minutes: { inputMode: 'numeric' },
} as const;

/** The chosen type's own fields, in the table's order: text-like ones side by side, flags below. */
function TypeFields({
  info,
  form,
  setField,
  errorOf,
}: {
  info: RuleTypeInfo;
  form: RuleForm;
  setField: (name: string) => (value: string | boolean) => void;
  errorOf: (field: FormField) => string | undefined;
}) {
  const typed = info.fields.filter((field) => field.input !== 'flag');
  const flags = info.fields.filter((field) => field.input === 'flag');
  const inputs = typed.map((field) => {
    const { input } = field;
    if (input === 'flag') return null;
    return (
      <TextField
        key={field.name}
        label={field.label}
        value={String(form.fields[field.name] ?? '')}
        onChange={setField(field.name)}
        error={errorOf(typeField(field.name))}
        {...(field.hint ? { hint: field.hint } : {})}
        {...INPUT_PROPS[input]}
      />
    );
  });
  // Channel and time fields are short: they share a row; text fields take the width.
  const short = typed.every((field) => field.input !== 'text');
  return (
    <>
      {short ? <div className="field-row">{inputs}</div> : inputs}
      {flags.map((field) => (
        <CheckField
          key={field.name}
          label={field.label}
          checked={form.fields[field.name] === true}
          onChange={setField(field.name)}
          error={errorOf(typeField(field.name))}
        />
      ))}
    </>
  );
}
