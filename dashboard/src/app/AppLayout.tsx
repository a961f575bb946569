import { Suspense, useState } from 'react';
import {
  AppShell,
  Badge,
  Box,
  Burger,
  Button,
  Center,
  Group,
  Loader,
  NavLink,
  ScrollArea,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, NavLink as RouterNavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { signOut } from '../api/contract';
import { useSession, useSetSession, useSwitchTestMode } from '../api/session';
import { ApiErrorAlert } from '../components/ApiErrorAlert';
import { ColorSchemeButton } from './ColorSchemeButton';
import { FindAnythingButton, FindAnythingHost } from './find-anything-launcher';
import { LocaleSelect } from '../components/LocaleSelect';
import { SECTIONS } from './sections';

/**
 * Test mode's colour: the banner, the header's edge and the badge beside the organization's name. A dark orange, so
 * white text on it is well above WCAG AA's 4.5:1 (7:1); the switch uses Mantine's orange.
 */
const TEST_COLOR = '#9a3412';

/**
 * The signed-in frame: header (organization, test-mode switch, user, sign-out), navigation (a burger menu on
 * phones), the page; in test mode a banner above every page says that its data is test data.
 */
export function AppLayout() {
  const session = useSession();
  const setSession = useSetSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [opened, { toggle, close }] = useDisclosure(false);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<unknown>(null);
  const switchTestMode = useSwitchTestMode();
  const [switching, setSwitching] = useState(false);
  const [switchError, setSwitchError] = useState<unknown>(null);
  const testMode = session.testMode;

  const onSwitch = async (next: boolean) => {
    setSwitching(true);
    setSwitchError(null);
    try {
      await switchTestMode(next);
    } catch (error) {
      setSwitchError(error);
    } finally {
      setSwitching(false);
    }
  };

  const onSignOut = async () => {
    setSigningOut(true);
    try {
      await signOut(session.csrfToken);
      setSession(null);
      void navigate('/sign-in', { replace: true });
    } catch (error) {
      setSignOutError(error);
      setSigningOut(false);
    }
  };

  return (
    <AppShell
      header={{ height: testMode ? 92 : 56 }}
      navbar={{ width: 232, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header style={testMode ? { borderBottom: `2px solid ${TEST_COLOR}` } : undefined}>
        <Group h={56} px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={opened ? 'Close navigation' : 'Open navigation'}
              aria-expanded={opened}
              aria-controls="dashboard-navigation"
            />
            {/* A phone's header keeps the organization's name and the search button; the product's name goes. */}
            <Text fw={700} visibleFrom="xs">
              Patron
            </Text>
            <Text c="dimmed" truncate="end" data-testid="organization-name">
              {session.organization.name}
            </Text>
            {testMode && (
              <Badge color={TEST_COLOR} variant="filled" visibleFrom="xs">
                Test data
              </Badge>
            )}
          </Group>
          <Group gap="sm" wrap="nowrap">
            <FindAnythingButton />
            {/* On a phone the header has no room for it: it is at the foot of the navigation. */}
            <Box visibleFrom="sm">
              <ColorSchemeButton />
            </Box>
            <Switch
              label="Test mode"
              color="orange"
              styles={{ label: { whiteSpace: 'nowrap' } }}
              checked={testMode}
              disabled={switching}
              onChange={(event) => void onSwitch(event.currentTarget.checked)}
              data-testid="test-mode-switch"
            />
            <Box visibleFrom="sm">
              <LocaleSelect />
            </Box>
            <Text size="sm" visibleFrom="sm" truncate="end" maw={260} data-testid="user-email">
              {session.user.email}
            </Text>
            {/* The user's own account and password (docs/dashboard.md#passwords-and-sign-in-links). */}
            <Button component={Link} to="/account" variant="subtle" size="xs" visibleFrom="sm">
              Account
            </Button>
            <Button variant="default" size="xs" onClick={onSignOut} loading={signingOut}>
              Sign out
            </Button>
          </Group>
        </Group>
        {testMode && (
          <Box
            role="status"
            data-testid="test-mode-banner"
            bg={TEST_COLOR}
            c="white"
            px="md"
            h={34}
            style={{ display: 'flex', alignItems: 'center' }}
          >
            <Text size="sm" fw={600} visibleFrom="sm">
              Test mode: you are viewing test data. Changes here do not affect live data.
            </Text>
            {/* A phone's width holds the gist only. */}
            <Text size="sm" fw={600} hiddenFrom="sm">
              Test mode: test data only; live data is untouched.
            </Text>
          </Box>
        )}
      </AppShell.Header>
      <AppShell.Navbar p="xs" id="dashboard-navigation" aria-label="Sections">
        <AppShell.Section grow component={ScrollArea}>
          {SECTIONS.filter((section) => !section.permission || session.permissions.includes(section.permission)).map(
            (section) => (
              <NavLink
                key={section.path}
                component={RouterNavLink}
                to={`/${section.path}`}
                label={section.label}
                active={location.pathname.startsWith(`/${section.path}`)}
                onClick={close}
              />
            ),
          )}
        </AppShell.Section>
        <AppShell.Section hiddenFrom="sm" p="xs">
          <Group justify="space-between" wrap="nowrap" gap="xs">
            <Text size="sm" c="dimmed" truncate="end">
              Signed in as {session.user.email}
            </Text>
            <ColorSchemeButton position="top-start" testId="color-scheme-button-navigation" />
          </Group>
          {/* On a phone the header has no room: the language is chosen here, under the sections. */}
          <Box mt="xs">
            <LocaleSelect testId="locale-select-phone" />
          </Box>
          <NavLink
            component={RouterNavLink}
            to="/account"
            label="Account and password"
            active={location.pathname.startsWith('/account')}
            onClick={close}
          />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <Stack maw={1400} mx="auto" gap={0}>
          {signOutError !== null && <ApiErrorAlert error={signOutError} title="Could not sign out" />}
          {switchError !== null && (
            <ApiErrorAlert error={switchError} title={`Could not switch ${testMode ? 'to live' : 'to test'} data`} />
          )}
          <Suspense
            fallback={
              <Center py="xl">
                <Loader aria-label="Loading the page" />
              </Center>
            }
          >
            <Outlet />
          </Suspense>
        </Stack>
      </AppShell.Main>
      <FindAnythingHost />
    </AppShell>
  );
}
