/**
 * Buttons and links that a remote reaches: each registers with spatial navigation
 * (norigin), which moves the browser's own focus between them on arrow keys, so the
 * focus ring works as it does with a mouse and keyboard. Norigin takes Enter for
 * itself (it prevents the browser's default), so Enter clicks here.
 */
import { FocusContext, useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { Link, type LinkProps } from '@tanstack/react-router';
import type { ButtonHTMLAttributes, HTMLAttributes, ReactNode } from 'react';

/** Scrolls a newly focused element into view (a remote has no scroll wheel). */
const reveal = (element: HTMLElement | null) => element?.scrollIntoView({ block: 'nearest', inline: 'nearest' });

export function FocusButton({
  children,
  focusKey,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { children: ReactNode; focusKey?: string }) {
  const { ref } = useFocusable<object, HTMLButtonElement>({
    focusable: !props.disabled,
    onFocus: () => reveal(ref.current),
    onEnterPress: () => ref.current?.click(),
    ...(focusKey ? { focusKey } : {}),
  });
  return (
    <button type="button" ref={ref} {...props}>
      {children}
    </button>
  );
}

export function FocusLink(
  props: LinkProps & { className?: string; title?: string; 'aria-label'?: string; children?: ReactNode },
) {
  const { ref } = useFocusable<object, HTMLAnchorElement>({
    onFocus: () => reveal(ref.current),
    onEnterPress: () => ref.current?.click(),
  });
  return <Link ref={ref} {...props} />;
}

/**
 * A row or block of focusable things (a nav bar, a grid, a row of buttons). Arrows move
 * within it first; leaving it in a direction lands on the neighbouring group, at the
 * child last focused there (or its first), as a TV's own apps behave.
 */
export function FocusGroup({
  children,
  as: Tag = 'div',
  focusKey: key,
  ...props
}: HTMLAttributes<HTMLElement> & { children: ReactNode; as?: 'div' | 'nav' | 'section'; focusKey?: string }) {
  const { ref, focusKey } = useFocusable<object, HTMLElement>({
    trackChildren: true,
    saveLastFocusedChild: true,
    ...(key ? { focusKey: key } : {}),
  });
  return (
    <FocusContext.Provider value={focusKey}>
      <Tag ref={ref as never} {...props}>
        {children}
      </Tag>
    </FocusContext.Provider>
  );
}
