import { Suspense, useState } from 'react';
import { AppShell, Burger, Button, Center, Group, Loader, NavLink, ScrollArea, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { NavLink as RouterNavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { signOut } from '../api/contract';
import { useSession, useSetSession } from '../api/session';
import { ApiErrorAlert } from '../components/ApiErrorAlert';
import { SECTIONS } from './sections';

/** The signed-in frame: header (organization, user, sign-out), navigation (a burger menu on phones), the page. */
export function AppLayout() {
  const session = useSession();
  const setSession = useSetSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [opened, { toggle, close }] = useDisclosure(false);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<unknown>(null);

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
      header={{ height: 56 }}
      navbar={{ width: 232, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
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
            <Text fw={700}>Patron</Text>
            <Text c="dimmed" truncate="end" data-testid="organization-name">
              {session.organization.name}
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" visibleFrom="sm" truncate="end" maw={260} data-testid="user-email">
              {session.user.email}
            </Text>
            <Button variant="default" size="xs" onClick={onSignOut} loading={signingOut}>
              Sign out
            </Button>
          </Group>
        </Group>
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
          <Text size="sm" c="dimmed" truncate="end">
            Signed in as {session.user.email}
          </Text>
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <Stack maw={1400} mx="auto" gap={0}>
          {signOutError !== null && <ApiErrorAlert error={signOutError} title="Could not sign out" />}
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
    </AppShell>
  );
}
