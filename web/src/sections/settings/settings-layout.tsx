/**
 * Settings: where channels and the guide come from with the library and the server (the index), and the lineup
 * (Channels).
 */
import { Outlet } from '@tanstack/react-router';
import { FocusGroup, FocusLink } from '../../components/focusable';
import { useMode } from '../../components/mode';

const TABS = [
  { to: '/{-$mode}/settings', label: 'Sources and library', exact: true },
  { to: '/{-$mode}/settings/channels', label: 'Channels', exact: false },
] as const;

export function SettingsLayout() {
  const mode = useMode();
  return (
    <>
      <FocusGroup as="nav" className="subnav" aria-label="Settings pages">
        {TABS.map((tab) => (
          <FocusLink
            key={tab.to}
            to={tab.to}
            params={{ mode }}
            className="tab"
            activeOptions={{ exact: tab.exact }}
            activeProps={{ className: 'tab active', 'aria-current': 'page' }}
          >
            {tab.label}
          </FocusLink>
        ))}
      </FocusGroup>
      <Outlet />
    </>
  );
}
