import { useState } from 'react';
import { Badge, Button, Code, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi, useCan } from '../../api/session';
import { eachRow, type BulkAction } from '../../components/BulkActions';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime } from '../../lib/format';
import {
  customerName,
  describeReward,
  MEMBERSHIPS_KEY,
  REWARD_STATUS_COLORS,
  REWARDS_KEY,
  type Reward,
  CLOSE_LABEL,
  notifySuccess,
} from '../loyalty/shared';

/** After a reward changes: its lists, the feeds (an entry was written) and balances. */
export function useRewardsChanged() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: REWARDS_KEY }),
      queryClient.invalidateQueries({ queryKey: MEMBERSHIPS_KEY }),
    ]);
}

export function RewardStatus({ reward }: { reward: Reward }) {
  return (
    <Badge color={REWARD_STATUS_COLORS[reward.status]} variant="light" miw="fit-content">
      {reward.status}
    </Badge>
  );
}

/** Redeem and Revoke for a pending reward (loyalty:write): each asks first and shows the API's refusal. */
export function RewardActions({ reward }: { reward: Reward }) {
  const api = useApi();
  const canWrite = useCan('loyalty:write');
  const changed = useRewardsChanged();
  const [dialog, setDialog] = useState<'redeem' | 'revoke' | null>(null);
  const [reason, setReason] = useState('');
  if (!canWrite || reward.status !== 'pending') return null;
  const label = reward.code ?? describeReward(reward.reward);
  return (
    <Group gap={4} wrap="nowrap" onClick={(event) => event.stopPropagation()}>
      <Button size="xs" variant="light" onClick={() => setDialog('redeem')} aria-label={`Redeem ${label}`}>
        Redeem
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        onClick={() => {
          setReason('');
          setDialog('revoke');
        }}
        aria-label={`Revoke ${label}`}
      >
        Revoke
      </Button>
      <ConfirmDialog
        opened={dialog === 'redeem'}
        onClose={() => setDialog(null)}
        title="Redeem this reward?"
        danger={false}
        message={
          <Text size="sm">
            {describeReward(reward.reward)}, code <Code>{reward.code ?? '—'}</Code>, is marked as used. This cannot be
            undone.
          </Text>
        }
        confirmLabel="Redeem"
        onConfirm={async () => {
          await api.POST('/loyalty-rewards/redeem', { body: { code: reward.code ?? '' } });
          await changed();
          notifySuccess('The reward was redeemed.');
        }}
      />
      <ConfirmDialog
        opened={dialog === 'revoke'}
        onClose={() => setDialog(null)}
        title="Revoke this reward?"
        message={
          <Stack gap="xs">
            <Text size="sm">
              {describeReward(reward.reward)}, code <Code>{reward.code ?? '—'}</Code>, can no longer be used. This
              cannot be undone.
            </Text>
            <TextInput
              label="Reason"
              description="Optional; shown on the member's activity."
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value)}
            />
          </Stack>
        }
        confirmLabel="Revoke reward"
        onConfirm={async () => {
          await api.POST('/loyalty-rewards/{id}/revoke', {
            params: { path: { id: reward.id } },
            body: reason.trim() ? { reason: reason.trim() } : {},
          });
          await changed();
          notifySuccess('The reward was revoked.');
        }}
      />
    </Group>
  );
}

const STATUSES = ['pending', 'redeemed', 'expired', 'revoked'] as const;

/** Every reward, searchable by code or the customer's email or name, filtered by status; redeem a code. */
/** A reward as a checkbox's name and a failure's line: its code. */
const rewardLabel = (reward: Reward) => `the reward ${reward.code ?? reward.id}`;

export function RewardsTab({ onOpenCustomer }: { onOpenCustomer: (customerId: string) => void }) {
  const api = useApi();
  const canWrite = useCan('loyalty:write');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [redeeming, setRedeeming] = useState(false);
  const rewards = (count: number) => `${count} ${count === 1 ? 'reward' : 'rewards'}`;
  // One revoke per reward; one already redeemed, expired or revoked is named in the summary with the API's reason.
  const bulkActions: BulkAction<Reward>[] = [
    {
      label: 'Revoke',
      danger: true,
      confirm: (n) => `${rewards(n)} will be revoked: their codes stop working and members are told as usual.`,
      done: (n) => `Revoked ${rewards(n)}`,
      run: (rows, progress) =>
        eachRow(rows, progress, rewardLabel, (reward) =>
          api.POST('/loyalty-rewards/{id}/revoke', {
            params: { path: { id: reward.id } },
            body: { reason: 'Revoked from the rewards list' },
          }),
        ),
    },
  ];
  return (
    <Stack>
      <Group align="flex-end" justify="space-between" gap="sm">
        <Group align="flex-end" gap="sm" style={{ flex: 1 }} wrap="wrap">
          <TextInput
            label="Search rewards"
            placeholder="Code, or the customer's email or name"
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value)}
            w={{ base: '100%', xs: 320 }}
            maxLength={200}
          />
          <Select
            label="Status"
            placeholder="Any"
            data={STATUSES.map((value) => ({ value, label: value }))}
            value={status}
            onChange={setStatus}
            clearable
            w={{ base: '100%', xs: 160 }}
          />
        </Group>
        {canWrite && (
          <Button variant="default" onClick={() => setRedeeming(true)}>
            Redeem a code
          </Button>
        )}
      </Group>
      <PagedTable<Reward>
        caption="Rewards"
        queryKey={[...REWARDS_KEY, 'list', { search: debounced, status }]}
        fetchPage={(cursor, signal) =>
          api.GET('/loyalty-rewards', {
            params: {
              query: {
                cursor,
                limit: 25,
                include: 'customer',
                ...(debounced ? { search: debounced } : {}),
                ...(status ? { filter: JSON.stringify({ status }) } : {}),
              },
            },
            signal,
          })
        }
        rowKey={(reward) => reward.id}
        onRowClick={(reward) => reward.customer && onOpenCustomer(reward.customer.id)}
        {...(canWrite && { bulk: { actions: bulkActions, noun: ['reward', 'rewards'], label: rewardLabel } })}
        empty={debounced || status ? 'No reward matches.' : 'No rewards yet.'}
        columns={[
          {
            key: 'code',
            header: 'Code',
            render: (reward) => <Code style={{ whiteSpace: 'nowrap' }}>{reward.code ?? '—'}</Code>,
          },
          {
            key: 'customer',
            header: 'Customer',
            render: (reward) =>
              reward.customer ? (
                <Stack gap={0}>
                  <Text size="sm">{customerName(reward.customer)}</Text>
                  <Text size="xs" c="dimmed" visibleFrom="sm">
                    {reward.customer.email}
                  </Text>
                </Stack>
              ) : (
                '—'
              ),
          },
          { key: 'reward', header: 'Reward', render: (reward) => describeReward(reward.reward), visibleFrom: 'sm' },
          { key: 'status', header: 'Status', render: (reward) => <RewardStatus reward={reward} /> },
          {
            key: 'expiresAt',
            header: 'Expires',
            render: (reward) => (reward.expiresAt ? formatDateTime(reward.expiresAt) : 'Never'),
            visibleFrom: 'md',
          },
          { key: 'actions', header: '', render: (reward) => <RewardActions reward={reward} /> },
        ]}
      />
      <RedeemCode opened={redeeming} onClose={() => setRedeeming(false)} />
    </Stack>
  );
}

/** POST /loyalty-rewards/redeem { code, orderId? }: the code as the customer reads it out. */
function RedeemCode({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const api = useApi();
  const changed = useRewardsChanged();
  const form = useForm({
    initialValues: { code: '', orderId: '' },
    validate: { code: (value) => (value.trim() ? null : 'Enter the code.') },
  });
  const redeem = useMutation({
    mutationFn: (values: { code: string; orderId: string }) =>
      api.POST('/loyalty-rewards/redeem', {
        body: { code: values.code.trim(), ...(values.orderId.trim() ? { orderId: values.orderId.trim() } : {}) },
      }),
    onSuccess: async (reward) => {
      await changed();
      notifySuccess(`Redeemed ${reward.code ?? ''}: ${describeReward(reward.reward)}.`);
      close();
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const close = () => {
    redeem.reset();
    form.reset();
    onClose();
  };
  return (
    <Modal {...CLOSE_LABEL} opened={opened} onClose={close} title="Redeem a reward code">
      <form onSubmit={form.onSubmit((values) => redeem.mutate(values))}>
        <Stack>
          <TextInput
            label="Code"
            description="Case, spaces and dashes do not matter."
            required
            {...form.getInputProps('code')}
          />
          <TextInput
            label="Order id"
            description="Optional: the order it was used on."
            {...form.getInputProps('orderId')}
          />
          <FormError error={redeem.error} form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={redeem.isPending}>
              Redeem
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
