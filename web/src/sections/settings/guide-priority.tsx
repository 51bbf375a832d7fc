/**
 * A guide's priority, edited in place: where guides describe one channel, the one first
 * in this order (lower first) gives its programmes. Out of range is said here before
 * asking the server; the server's refusal is said the same way.
 */
import { useState } from 'react';
import { useLineupChanges } from '../../api/lineup.queries';
import type { Guide } from '../../api/server-types';
import { describeError } from '../../components/error-notice';
import { InlineEdit } from '../../components/inline-edit';

export function GuidePriority({
  guide,
  several,
}: {
  guide: Pick<Guide, 'id' | 'location' | 'priority'>;
  several: boolean;
}) {
  const change = useLineupChanges().guidePriority;
  const [problem, setProblem] = useState<string | undefined>();
  const errorId = `guide-priority-${guide.id}`;
  const save = async (typed: string) => {
    const priority = /^\d{1,4}$/.test(typed) ? Number(typed) : Number.NaN;
    if (!(priority >= 1 && priority <= 1000)) {
      setProblem('A priority is a whole number from 1 to 1000.');
      return false;
    }
    try {
      await change.mutateAsync({ id: guide.id, priority });
      setProblem(undefined);
      return true;
    } catch (error) {
      setProblem(describeError(error));
      return false;
    }
  };
  return (
    <span className="entry-detail guide-priority">
      <span>Priority</span>
      <InlineEdit
        value={String(guide.priority)}
        label={`Priority of guide ${guide.location}`}
        focusKey={`guide-priority-${guide.id}`}
        inputMode="numeric"
        maxLength={4}
        errorId={problem ? errorId : undefined}
        onSave={save}
      />
      <span>{several ? '(lower first, where guides describe the same channel)' : ''}</span>
      {problem && (
        <span id={errorId} className="entry-error" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}
