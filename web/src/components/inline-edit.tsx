/**
 * A value edited where it is shown (a channel's number or name): a button with the
 * value, which becomes a one-line field when chosen. Enter saves, Escape (a remote's
 * Back) or leaving the field cancels, so nothing is saved by accident. A save the server
 * refuses keeps the field open with what was typed, tied to the message that says why
 * (`errorId`), so it can be corrected. Both the button and the field register with
 * spatial navigation, and the focus goes back to the button afterwards, so a remote
 * carries on from where it was.
 */
import { setFocus, useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { FocusButton } from './focusable';
import './inline-edit.css';

export interface InlineEditProps {
  value: string;
  /** What the value is, for a screen reader ("Number of channel Five"); the button says it with the value. */
  label: string;
  focusKey: string;
  /** Saves the typed value: true when saved (the field closes), false when refused (it stays open). */
  onSave: (value: string) => Promise<boolean>;
  /** The id of the message saying why the last save was refused, while it is shown. */
  errorId?: string | undefined;
  inputMode?: 'text' | 'numeric' | 'decimal';
  maxLength?: number;
  className?: string;
  children?: ReactNode;
}

const CANCEL_KEYS = new Set(['Escape', 'GoBack', 'BrowserBack']);

export function InlineEdit({
  value,
  label,
  focusKey,
  onSave,
  errorId,
  inputMode = 'text',
  maxLength,
  className = '',
  children,
}: InlineEditProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [refocus, setRefocus] = useState(false);
  // Once the field has closed and the button is back (registered before this effect runs: children's effects run
  // first).
  useEffect(() => {
    if (!refocus || draft !== null) return;
    setRefocus(false);
    void setFocus(focusKey);
  }, [refocus, draft, focusKey]);
  const close = (focus: boolean) => {
    setDraft(null);
    setRefocus(focus);
  };
  const save = async () => {
    if (draft === null || saving) return;
    if (draft.trim() === value) return close(true);
    setSaving(true);
    try {
      if (await onSave(draft.trim())) close(true);
    } finally {
      setSaving(false);
    }
  };
  if (draft === null) {
    return (
      <FocusButton
        className={`inline-value ${className}`}
        focusKey={focusKey}
        aria-label={`${label}: ${value}. Change it`}
        onClick={() => setDraft(value)}
      >
        {children ?? value}
      </FocusButton>
    );
  }
  return (
    <form
      className={`inline-form ${className}`}
      onSubmit={(event) => {
        // Enter in the field: the browser submits the form (spatial navigation leaves Enter in fields alone, main.tsx).
        event.preventDefault();
        void save();
      }}
    >
      <InlineField
        focusKey={`${focusKey}-field`}
        label={label}
        value={draft}
        saving={saving}
        errorId={errorId}
        inputMode={inputMode}
        maxLength={maxLength}
        onChange={setDraft}
        onCancel={(focus) => !saving && close(focus)}
      />
    </form>
  );
}

interface FieldProps {
  focusKey: string;
  label: string;
  value: string;
  saving: boolean;
  errorId: string | undefined;
  inputMode: InlineEditProps['inputMode'];
  maxLength: number | undefined;
  onChange: (value: string) => void;
  onCancel: (focus: boolean) => void;
}

function InlineField({
  focusKey,
  label,
  value,
  saving,
  errorId,
  inputMode,
  maxLength,
  onChange,
  onCancel,
}: FieldProps) {
  const { ref } = useFocusable<object, HTMLInputElement>({ focusKey });
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current) return;
    opened.current = true;
    // Spatial navigation follows the field, so Up or Down from it goes on from this row.
    void setFocus(focusKey);
    ref.current?.focus();
    ref.current?.select();
  }, [focusKey, ref]);
  return (
    <input
      ref={ref}
      type="text"
      className="inline-input"
      aria-label={label}
      value={value}
      inputMode={inputMode}
      maxLength={maxLength}
      readOnly={saving}
      aria-busy={saving || undefined}
      aria-invalid={errorId ? true : undefined}
      aria-describedby={errorId}
      enterKeyHint="done"
      onChange={(event) => onChange(event.target.value)}
      onKeyDown={(event) => {
        if (!CANCEL_KEYS.has(event.key)) return;
        event.preventDefault();
        event.stopPropagation();
        onCancel(true);
      }}
      // Leaving the field by a click or an arrow cancels; the focus goes where the user sent it.
      onBlur={() => onCancel(false)}
    />
  );
}
