import { Tabs } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { ExportsTab } from './ExportsTab';
import { ImportsTab } from './ImportsTab';

/** CSV / JSON Lines imports with their progress, and exports to download. The tab is in the URL (?tab=). */
export default function ImportsExportsPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'exports' ? 'exports' : 'imports';
  return (
    <>
      <PageHeader
        title="Imports & exports"
        description="Import a file of records in the background, or export a list to a file."
      />
      <Tabs value={tab} onChange={(value) => value && setParams({ tab: value }, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="imports">Imports</Tabs.Tab>
          <Tabs.Tab value="exports">Exports</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="imports">
          <ImportsTab />
        </Tabs.Panel>
        <Tabs.Panel value="exports">
          <ExportsTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
