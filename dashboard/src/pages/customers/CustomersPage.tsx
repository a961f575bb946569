import { useState } from 'react';
import { Group, Select, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useSearchParams } from 'react-router';
import { useApi, useCan } from '../../api/session';
import { tagActions } from '../../components/BulkActions';
import { ExportButton } from '../../components/ExportButton';
import { DetailDrawer, useDetailParam } from '../../components/DetailDrawer';
import { PageHeader } from '../../components/PageHeader';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime, formatInteger } from '../../lib/format';
import {
  customerName,
  MEMBERSHIPS_KEY,
  nameOf,
  usePrograms,
  useTiers,
  type Customer,
  type Membership,
} from '../loyalty/shared';
import { CustomerDetail, useCustomer } from './CustomerDetail';
import { RewardsTab } from './rewards';

/**
 * Customers and loyalty members: search customers, members by balance, every reward; a customer's detail (orders,
 * memberships, activity, rewards, and the loyalty actions) opens in a drawer kept in the URL (`?customer=`).
 */
export default function CustomersPage() {
  const [params, setParams] = useSearchParams();
  const detail = useDetailParam('customer');
  const canLoyalty = useCan('loyalty:read');
  const tabs = [
    { value: 'customers', label: 'Customers', shown: true },
    { value: 'members', label: 'Members', shown: canLoyalty },
    { value: 'rewards', label: 'Rewards', shown: canLoyalty },
  ].filter((tab) => tab.shown);
  const asked = params.get('tab');
  const tab = tabs.some((candidate) => candidate.value === asked) ? asked! : 'customers';
  const customer = useCustomer(detail.id);
  return (
    <>
      <PageHeader title="Customers" description="Customers, loyalty members and their rewards." />
      <Tabs value={tab} onChange={(value) => value && setParams({ tab: value }, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          {tabs.map((candidate) => (
            <Tabs.Tab key={candidate.value} value={candidate.value}>
              {candidate.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="customers">
          <CustomersTab onOpen={detail.open} />
        </Tabs.Panel>
        <Tabs.Panel value="members">
          <MembersTab onOpen={detail.open} />
        </Tabs.Panel>
        <Tabs.Panel value="rewards">
          <RewardsTab onOpenCustomer={detail.open} />
        </Tabs.Panel>
      </Tabs>
      <DetailDrawer
        opened={detail.id !== null}
        onClose={detail.close}
        title={customer.data ? customerName(customer.data) : 'Customer'}
        size="xl"
      >
        {detail.id && <CustomerDetail customerId={detail.id} />}
      </DetailDrawer>
    </>
  );
}

function CustomersTab({ onOpen }: { onOpen: (id: string) => void }) {
  const api = useApi();
  const canWrite = useCan('customers:write');
  const bulkActions = tagActions<Customer>(['customer', 'customers'], (ids, body) =>
    api.PATCH('/customers/bulk-update', {
      params: { query: { filter: JSON.stringify({ id: { $in: ids } }) } },
      body,
    }),
  );
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  return (
    <Stack>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          label="Search customers"
          placeholder="Email, name or phone"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          w={{ base: '100%', xs: 360 }}
          maxLength={200}
        />
        <ExportButton resource="customers" noun="customers" selection={{ search: debounced || null }} />
      </Group>
      <PagedTable<Customer>
        caption="Customers"
        queryKey={['customers', 'list', { search: debounced }]}
        fetchPage={(cursor, signal) =>
          api.GET('/customers', {
            params: { query: { cursor, limit: 25, ...(debounced ? { search: debounced } : {}) } },
            signal,
          })
        }
        rowKey={(customer) => customer.id}
        onRowClick={(customer) => onOpen(customer.id)}
        {...(canWrite && {
          bulk: { actions: bulkActions, noun: ['customer', 'customers'], label: (customer) => customer.email },
        })}
        empty={debounced ? 'No customer matches.' : 'No customers yet.'}
        columns={[
          {
            key: 'name',
            header: 'Name',
            render: (customer) => [customer.firstName, customer.lastName].filter(Boolean).join(' ') || '—',
          },
          {
            key: 'email',
            header: 'Email',
            render: (customer) => (
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {customer.email}
              </Text>
            ),
          },
          { key: 'country', header: 'Country', render: (customer) => customer.country ?? '—', visibleFrom: 'sm' },
          {
            key: 'createdAt',
            header: 'Since',
            render: (customer) => formatDateTime(customer.createdAt),
            visibleFrom: 'md',
          },
        ]}
      />
    </Stack>
  );
}

const MEMBER_SORTS = [
  { value: '-pointsBalance', label: 'Highest balance' },
  { value: '-lifetimePoints', label: 'Most lifetime points' },
  { value: '-createdAt', label: 'Newest members' },
] as const;
type MemberSort = (typeof MEMBER_SORTS)[number]['value'];

function MembersTab({ onOpen }: { onOpen: (id: string) => void }) {
  const api = useApi();
  const programs = usePrograms();
  const tiers = useTiers();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<MemberSort>('-pointsBalance');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  type Row = Membership & { customer?: Customer };
  return (
    <Stack>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          label="Search members"
          placeholder="Email, name, phone or referral code"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          w={{ base: '100%', xs: 360 }}
          maxLength={200}
        />
        <Select
          label="Sort"
          data={MEMBER_SORTS.map((option) => ({ ...option }))}
          value={sort}
          onChange={(value) => value && setSort(value as MemberSort)}
          allowDeselect={false}
          w={{ base: '100%', xs: 220 }}
        />
      </Group>
      <PagedTable<Row>
        caption="Members"
        queryKey={[...MEMBERSHIPS_KEY, 'list', { search: debounced, sort }]}
        fetchPage={(cursor, signal) =>
          api.GET('/loyalty-memberships', {
            params: {
              query: { cursor, limit: 25, sort, include: 'customer', ...(debounced ? { search: debounced } : {}) },
            },
            signal,
          }) as Promise<{ data: Row[]; nextCursor: string | null }>
        }
        rowKey={(membership) => membership.id}
        onRowClick={(membership) => onOpen(membership.customerId)}
        empty={debounced ? 'No member matches.' : 'No members yet.'}
        columns={[
          {
            key: 'customer',
            header: 'Customer',
            render: (membership) => (membership.customer ? customerName(membership.customer) : '—'),
          },
          {
            key: 'program',
            header: 'Program',
            render: (membership) => nameOf(programs.data, membership.loyaltyProgramId),
            visibleFrom: 'md',
          },
          {
            key: 'tier',
            header: 'Tier',
            render: (membership) => nameOf(tiers.data, membership.loyaltyTierId),
            visibleFrom: 'sm',
          },
          { key: 'balance', header: 'Balance', render: (membership) => formatInteger(membership.pointsBalance) },
          {
            key: 'lifetime',
            header: 'Lifetime',
            render: (membership) => formatInteger(membership.lifetimePoints),
            visibleFrom: 'sm',
          },
          {
            key: 'state',
            header: 'State',
            render: (membership) => (membership.leftAt ? 'Left' : 'Active'),
            visibleFrom: 'md',
          },
        ]}
      />
    </Stack>
  );
}
