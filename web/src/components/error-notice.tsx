/** Every error the app meets, as a sentence a person can act on, with a way to try again. */
import { ApiError } from '../api/http-client';
import { FocusButton } from './focusable';

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message) return `Something went wrong: ${error.message}`;
  return 'Something went wrong.';
}

export function ErrorNotice({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="notice notice-error" role="alert">
      <p>{describeError(error)}</p>
      {retry && <FocusButton onClick={retry}>Try again</FocusButton>}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: string }) {
  return <p className="empty">{children}</p>;
}
