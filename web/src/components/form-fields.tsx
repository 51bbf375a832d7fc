/**
 * Form fields a remote reaches: each input registers with spatial navigation, so arrows
 * land on it and Up/Down leave it again (main.tsx), Enter toggles a checkbox, and a
 * choice is a row of buttons rather than a <select> (whose arrows a TV would keep).
 * A field's error is written under it and tied to it (aria-describedby), so a screen
 * reader reads it with the field.
 */
import { useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import { FocusButton, FocusGroup } from './focusable';
import './form-fields.css';

const reveal = (element: HTMLElement | null) => element?.scrollIntoView({ block: 'nearest', inline: 'nearest' });

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'>;

export function TextField({
  label,
  value,
  onChange,
  error,
  hint,
  ...props
}: InputProps & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  hint?: string;
}) {
  const id = useId();
  const { ref } = useFocusable<object, HTMLInputElement>({ onFocus: () => reveal(ref.current) });
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        ref={ref}
        type="text"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        {...props}
      />
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function CheckField({
  label,
  checked,
  onChange,
  error,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string | undefined;
}) {
  const id = useId();
  const { ref } = useFocusable<object, HTMLInputElement>({
    onFocus: () => reveal(ref.current),
    onEnterPress: () => ref.current?.click(),
  });
  return (
    <div className={`field field-check${error ? ' field-invalid' : ''}`}>
      <input
        id={id}
        ref={ref}
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <label htmlFor={id}>{label}</label>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** One of a few values, as a row of toggle buttons. */
export function ChoiceField<V extends string>({
  label,
  value,
  options,
  onChange,
  disabled,
}: {
  label: string;
  value: V;
  options: ReadonlyArray<{ value: V; label: ReactNode }>;
  onChange: (value: V) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="field field-choice">
      <legend>{label}</legend>
      <FocusGroup className="choices">
        {options.map((option) => (
          <FocusButton
            key={option.value}
            className={option.value === value ? 'choice chosen' : 'choice'}
            aria-pressed={option.value === value}
            disabled={disabled && option.value !== value}
            onClick={() => onChange(option.value)}
          >
            {option.label}
          </FocusButton>
        ))}
      </FocusGroup>
    </fieldset>
  );
}
