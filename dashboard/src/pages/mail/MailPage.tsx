import { Tabs, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useCan } from '../../api/session';
import { PageHeader } from '../../components';
import { MailLogTab } from './MailLogTab';
import { TemplatesTab } from './TemplatesTab';

const TABS = [
  { value: 'templates', label: 'Templates' },
  { value: 'log', label: 'Mail log' },
] as const;

/**
 * The mails Patron writes to customers: their templates (edited and previewed) and the log of every mail queued,
 * sent or not. The tab, the filters and the open record are in the URL (?tab=, ?status=…, ?id=).
 */
export default function MailPage() {
  const [params, setParams] = useSearchParams();
  const canWrite = useCan('mail:write');
  const asked = params.get('tab');
  const tab = TABS.find((candidate) => candidate.value === asked)?.value ?? 'templates';
  return (
    <>
      <PageHeader
        title="Mail"
        description={
          canWrite ? (
            'Write the mails customers receive, preview them with sample data, and follow what was sent.'
          ) : (
            <Text span size="sm">
              You can read the templates and the mail log; changing templates needs the mail:write permission.
            </Text>
          )
        }
      />
      <Tabs value={tab} onChange={(value) => value && setParams({ tab: value }, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md" aria-label="Views">
          {TABS.map((candidate) => (
            <Tabs.Tab key={candidate.value} value={candidate.value}>
              {candidate.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="templates">
          <TemplatesTab />
        </Tabs.Panel>
        <Tabs.Panel value="log">
          <MailLogTab />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
