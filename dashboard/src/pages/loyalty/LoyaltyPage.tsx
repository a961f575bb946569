import { Tabs } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { ProgramsTab } from './ProgramsTab';
import { RulesTab } from './RulesTab';
import { TiersTab } from './TiersTab';

const TABS = [
  { value: 'programs', label: 'Programs' },
  { value: 'tiers', label: 'Tiers' },
  { value: 'rules', label: 'Rules' },
] as const;

/** Loyalty configuration (docs/api.md, "Loyalty programs, tiers, rules and memberships"); the tab is in the URL. */
export default function LoyaltyPage() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab = TABS.some((candidate) => candidate.value === asked) ? asked! : 'programs';
  return (
    <>
      <PageHeader title="Loyalty" description="Programs, tiers, and the rules that earn points and issue rewards." />
      <Tabs value={tab} onChange={(value) => value && setParams({ tab: value }, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          {TABS.map((candidate) => (
            <Tabs.Tab key={candidate.value} value={candidate.value}>
              {candidate.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="programs">
          <ProgramsTab />
        </Tabs.Panel>
        <Tabs.Panel value="tiers">
          <TiersTab />
        </Tabs.Panel>
        <Tabs.Panel value="rules">
          <RulesTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
