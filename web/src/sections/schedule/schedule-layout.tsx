/** The DVR section: what will record (Upcoming), the passes that decide it, and what records now. */
import { Outlet } from '@tanstack/react-router';
import { FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';
import './schedule.css';

const TABS = [
  { to: '/{-$mode}/schedule/upcoming', label: 'Upcoming' },
  { to: '/{-$mode}/schedule/passes', label: 'Passes' },
  { to: '/{-$mode}/schedule/recording', label: 'Recording now' },
] as const;

export function ScheduleLayout() {
  const mode = useMode();
  return (
    <section className="schedule" aria-label="DVR">
      <FocusGroup as="nav" className="subnav" aria-label="DVR pages">
        {TABS.map((tab) => (
          <FocusLink
            key={tab.to}
            to={tab.to}
            params={{ mode }}
            className="tab"
            activeProps={{ className: 'tab active', 'aria-current': 'page' }}
          >
            {tab.label}
          </FocusLink>
        ))}
      </FocusGroup>
      <Outlet />
    </section>
  );
}
