import { Tabs } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useSession } from '../../api/session';
import { PageHeader } from '../../components/PageHeader';
import { ApiKeysTab } from './ApiKeysTab';
import { OrganizationTab } from './OrganizationTab';
import { UsersTab } from './UsersTab';

/** Organization settings; users (owners only); API keys (owners and admins). The tab is in the URL (?tab=). */
export default function SettingsPage() {
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const tabs = [
    { value: 'organization', label: 'Organization', shown: true },
    { value: 'users', label: 'Users', shown: user.role === 'owner' },
    { value: 'keys', label: 'API keys', shown: user.role === 'owner' || user.role === 'admin' },
  ].filter((tab) => tab.shown);
  const asked = params.get('tab');
  const tab = tabs.some((candidate) => candidate.value === asked) ? asked! : 'organization';
  return (
    <>
      <PageHeader title="Settings" />
      <Tabs value={tab} onChange={(value) => value && setParams({ tab: value }, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          {tabs.map((candidate) => (
            <Tabs.Tab key={candidate.value} value={candidate.value}>
              {candidate.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="organization">
          <OrganizationTab />
        </Tabs.Panel>
        <Tabs.Panel value="users">
          <UsersTab />
        </Tabs.Panel>
        <Tabs.Panel value="keys">
          <ApiKeysTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
