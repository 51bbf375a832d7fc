/**
 * Asks for the server's token when a change is refused for want of one, once: the
 * token is kept in this browser (http-client.ts) and sent with every later change.
 */
import { FocusContext, setFocus, useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { useEffect, useState } from 'react';
import { setTokenAsker } from '../api/http-client';
import { FocusButton } from './focusable';

interface Ask {
  reason: string;
  answer: (token: string | null) => void;
}

export function TokenPrompt() {
  const [ask, setAsk] = useState<Ask | null>(null);
  const [value, setValue] = useState('');
  useEffect(() => {
    setTokenAsker((reason) => new Promise((resolve) => setAsk({ reason, answer: resolve })));
    return () => setTokenAsker(() => Promise.resolve(null));
  }, []);
  if (!ask) return null;
  const close = (token: string | null) => {
    ask.answer(token);
    setAsk(null);
    setValue('');
  };
  return <TokenDialog reason={ask.reason} value={value} setValue={setValue} close={close} />;
}

function TokenDialog({
  reason,
  value,
  setValue,
  close,
}: {
  reason: string;
  value: string;
  setValue: (value: string) => void;
  close: (token: string | null) => void;
}) {
  const { ref, focusKey } = useFocusable<object, HTMLFormElement>({ isFocusBoundary: true, focusKey: 'TOKEN' });
  useEffect(() => {
    void setFocus(focusKey);
  }, [focusKey]);
  return (
    <FocusContext.Provider value={focusKey}>
      <div className="dialog-backdrop">
        <form
          ref={ref}
          className="dialog"
          role="dialog"
          aria-modal="true"
          aria-labelledby="token-title"
          onSubmit={(event) => {
            event.preventDefault();
            close(value.trim() || null);
          }}
        >
          <h2 id="token-title">This server needs its token</h2>
          <p>{reason}</p>
          <label>
            Token
            <input
              type="password"
              autoComplete="current-password"
              value={value}
              autoFocus
              onChange={(event) => setValue(event.target.value)}
            />
          </label>
          <div className="actions">
            <FocusButton onClick={() => close(null)}>Cancel</FocusButton>
            <FocusButton type="submit" className="primary">
              Save token
            </FocusButton>
          </div>
        </form>
      </div>
    </FocusContext.Provider>
  );
}
