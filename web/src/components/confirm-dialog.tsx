/** A question that must be answered before something that cannot be undone (deleting a recording). */
import { useFocusable, FocusContext, setFocus } from '@noriginmedia/norigin-spatial-navigation';
import { useEffect, useId } from 'react';
import { FocusButton } from './focusable';

export function ConfirmDialog({
  title,
  body,
  confirm,
  onConfirm,
  onCancel,
  busy,
}: {
  title: string;
  body: string;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}) {
  const id = useId();
  // A boundary: arrows stay inside the dialog while it is open.
  const { ref, focusKey } = useFocusable<object, HTMLDivElement>({ isFocusBoundary: true, focusKey: `dialog-${id}` });
  useEffect(() => {
    void setFocus(focusKey);
    // First (capture) and alone: Back closes the dialog, it does not also leave the page under it.
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' && event.key !== 'Backspace' && event.key !== 'GoBack' && event.key !== 'BrowserBack')
        return;
      event.preventDefault();
      event.stopImmediatePropagation();
      onCancel();
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, [focusKey, onCancel]);
  return (
    <FocusContext.Provider value={focusKey}>
      <div className="dialog-backdrop">
        <div
          ref={ref}
          className="dialog"
          role="alertdialog"
          aria-modal="true"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-body`}
        >
          <h2 id={`${id}-title`}>{title}</h2>
          <p id={`${id}-body`}>{body}</p>
          <div className="actions">
            <FocusButton onClick={onCancel}>Cancel</FocusButton>
            <FocusButton className="danger" onClick={onConfirm} disabled={busy}>
              {confirm}
            </FocusButton>
          </div>
        </div>
      </div>
    </FocusContext.Provider>
  );
}
