/**
 * Buttons and links that a remote reaches: each registers with spatial navigation
 * (norigin), which moves the browser's own focus between them on arrow keys, so Enter
 * and the focus ring work as they do with a mouse and keyboard.
 */
import { useFocusable } from '@noriginmedia/norigin-spatial-navigation';
import { Link, type LinkProps } from '@tanstack/react-router';
import type { ButtonHTMLAttributes, ReactNode } from 'react';

/** Scrolls a newly focused element into view (a remote has no scroll wheel). */
const reveal = (element: HTMLElement | null) => element?.scrollIntoView({ block: 'nearest', inline: 'nearest' });

export function FocusButton({ children, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { children: ReactNode }) {
  const { ref } = useFocusable<object, HTMLButtonElement>({ focusable: !props.disabled, onFocus: () => reveal(ref.current) });
  return (
    <button type="button" ref={ref} {...props}>
      {children}
    </button>
  );
}

export function FocusLink(props: LinkProps & { className?: string; title?: string; 'aria-label'?: string; children?: ReactNode }) {
  const { ref } = useFocusable<object, HTMLAnchorElement>({ onFocus: () => reveal(ref.current) });
  return <Link ref={ref} {...props} />;
}
