import { useState } from 'react';
import {
  Badge,
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import type { RequestDataOf } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { DurationInput } from '../../components/DurationInput';
import { MoneyInput, moneyValue } from '../../components/MoneyInput';
import { PagedTable } from '../../components/PagedTable';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useFormat } from '../../lib/format-context';
import { wallTimeToInstant } from '../../lib/time';
import {
  ACTIVITY_KINDS,
  describeReward,
  MEMBERSHIPS_KEY,
  nameOf,
  REWARDS_KEY,
  usePrograms,
  useTiers,
  type ActivityEntry,
  type Membership,
  type Reward,
  CLOSE_LABEL,
  notifySuccess,
} from '../loyalty/shared';
import { RewardActions, RewardStatus, useRewardsChanged } from './rewards';

/** A customer's membership of one program: standing, actions, activity feed and rewards. */
export function MembershipPanel({ membership }: { membership: Membership }) {
  const programs = usePrograms();
  const tiers = useTiers();
  const canWrite = useCan('loyalty:write');
  const [action, setAction] = useState<'adjust' | 'issue' | null>(null);
  const program = programs.data?.find((candidate) => candidate.id === membership.loyaltyProgramId);
  const pointsName = program?.pointsName ?? 'points';
  const active = membership.leftAt === null;
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs">
          <Title order={3} size="h4">
            {program?.name ?? 'Loyalty program'}
          </Title>
          {active ? (
            <Badge variant="light">
              {nameOf(tiers.data, membership.loyaltyTierId) === '—'
                ? 'No tier'
                : nameOf(tiers.data, membership.loyaltyTierId)}
            </Badge>
          ) : (
            <Badge color="gray" variant="light">
              Left {formatDateTime(membership.leftAt)}
            </Badge>
          )}
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs">
          <Stat
            label={`Balance (${pointsName})`}
            value={formatInteger(membership.pointsBalance)}
            testId="points-balance"
          />
          <Stat label={`Lifetime ${pointsName}`} value={formatInteger(membership.lifetimePoints)} />
          <Stat label="Referral code" value={membership.referralCode} />
        </SimpleGrid>
        {canWrite && active && (
          <Group gap="xs">
            <Button size="xs" onClick={() => setAction('adjust')}>
              Adjust points
            </Button>
            <Button size="xs" variant="default" onClick={() => setAction('issue')}>
              Issue a reward
            </Button>
          </Group>
        )}
        <Tabs defaultValue="activity" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="activity">Activity</Tabs.Tab>
            <Tabs.Tab value="rewards">Rewards</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="activity" pt="sm">
            <ActivityFeed membershipId={membership.id} />
          </Tabs.Panel>
          <Tabs.Panel value="rewards" pt="sm">
            <MemberRewards membershipId={membership.id} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
      <AdjustPoints
        membership={membership}
        pointsName={pointsName}
        opened={action === 'adjust'}
        onClose={() => setAction(null)}
      />
      <IssueReward membership={membership} opened={action === 'issue'} onClose={() => setAction(null)} />
    </Paper>
  );
}

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} data-testid={testId}>
        {value}
      </Text>
    </Stack>
  );
}

/** GET /loyalty-memberships/{id}/activity: newest first, a page at a time, filtered by kind. */
function ActivityFeed({ membershipId }: { membershipId: string }) {
  const api = useApi();
  const tiers = useTiers();
  const [kind, setKind] = useState<string | null>(null);
  return (
    <Stack gap="xs">
      <Select
        label="Kind"
        placeholder="Every kind"
        data={Object.entries(ACTIVITY_KINDS).map(([value, label]) => ({ value, label }))}
        value={kind}
        onChange={setKind}
        clearable
        w={{ base: '100%', xs: 240 }}
        comboboxProps={{ withinPortal: true }}
      />
      <PagedTable<ActivityEntry>
        caption="Member activity"
        queryKey={[...MEMBERSHIPS_KEY, membershipId, 'activity', { kind }]}
        fetchPage={(cursor, signal) =>
          api.GET('/loyalty-memberships/{id}/activity', {
            params: {
              path: { id: membershipId },
              query: { cursor, limit: 20, ...(kind ? { filter: JSON.stringify({ kind }) } : {}) },
            },
            signal,
          })
        }
        rowKey={(entry) => entry.id}
        empty={kind ? 'Nothing of this kind yet.' : 'No activity yet.'}
        columns={[
          { key: 'occurredAt', header: 'When', render: (entry) => formatDateTime(entry.occurredAt) },
          {
            key: 'kind',
            header: 'What',
            render: (entry) =>
              entry.kind === 'tierChanged'
                ? `${ACTIVITY_KINDS.tierChanged}: ${entry.loyaltyTierId ? nameOf(tiers.data, entry.loyaltyTierId) : 'none'}`
                : ACTIVITY_KINDS[entry.kind],
          },
          {
            key: 'points',
            header: 'Points',
            render: (entry) =>
              entry.points === null ? '' : `${entry.points > 0 ? '+' : ''}${formatInteger(entry.points)}`,
          },
          { key: 'reason', header: 'Reason', render: (entry) => entry.reason ?? '', visibleFrom: 'sm' },
        ]}
      />
    </Stack>
  );
}

function MemberRewards({ membershipId }: { membershipId: string }) {
  const api = useApi();
  return (
    <PagedTable<Reward>
      caption="Member rewards"
      queryKey={[...REWARDS_KEY, 'member', membershipId]}
      fetchPage={(cursor, signal) =>
        api.GET('/loyalty-rewards', {
          params: { query: { cursor, limit: 20, filter: JSON.stringify({ loyaltyMembershipId: membershipId }) } },
          signal,
        })
      }
      rowKey={(reward) => reward.id}
      empty="No rewards yet."
      columns={[
        {
          key: 'code',
          header: 'Code',
          render: (reward) => <Code style={{ whiteSpace: 'nowrap' }}>{reward.code ?? '—'}</Code>,
        },
        { key: 'reward', header: 'Reward', render: (reward) => describeReward(reward.reward) },
        { key: 'status', header: 'Status', render: (reward) => <RewardStatus reward={reward} /> },
        { key: 'actions', header: '', render: (reward) => <RewardActions reward={reward} /> },
      ]}
    />
  );
}

interface AdjustValues {
  points: number | string;
  reason: string;
}

/** POST /loyalty-memberships/{id}/points-adjustments { points (signed, ≠ 0), reason }. */
function AdjustPoints({
  membership,
  pointsName,
  opened,
  onClose,
}: {
  membership: Membership;
  pointsName: string;
  opened: boolean;
  onClose: () => void;
}) {
  const api = useApi();
  const changed = useRewardsChanged();
  const form = useForm<AdjustValues>({
    initialValues: { points: '', reason: '' },
    validate: {
      points: (value) => (value === '' || Number(value) === 0 ? 'Enter a number of points other than 0.' : null),
      reason: (value) => (value.trim() ? null : 'Say why: it is kept on the ledger.'),
    },
  });
  const adjust = useMutation({
    mutationFn: (values: AdjustValues) =>
      api.POST('/loyalty-memberships/{id}/points-adjustments', {
        params: { path: { id: membership.id } },
        body: { data: { points: Number(values.points), reason: values.reason.trim() } },
      }),
    onSuccess: async (transaction) => {
      await changed();
      notifySuccess(`The balance is now ${formatInteger(transaction.balanceAfter)} ${pointsName}.`);
      close();
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const close = () => {
    adjust.reset();
    form.reset();
    onClose();
  };
  return (
    <Modal {...CLOSE_LABEL} opened={opened} onClose={close} title="Adjust points">
      <form onSubmit={form.onSubmit((values) => adjust.mutate(values))}>
        <Stack>
          <Text size="sm">
            The balance is {formatInteger(membership.pointsBalance)} {pointsName}. A negative number removes points.
          </Text>
          <NumberInput label="Points" required allowDecimal={false} {...form.getInputProps('points')} />
          <TextInput label="Reason" required maxLength={500} {...form.getInputProps('reason')} />
          <FormError error={adjust.error} form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={adjust.isPending}>
              Adjust
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const REWARD_TYPES = [
  { value: 'percentageCoupon', label: 'Percentage off' },
  { value: 'amountCoupon', label: 'Amount off' },
  { value: 'freeShipping', label: 'Free shipping' },
  { value: 'giftCard', label: 'Gift card' },
];

type NumberField = number | string;
interface IssueValues {
  reward: {
    type: string;
    percentageDiscount: NumberField;
    /** Money as typed, in major units of the organization's currency (MoneyInput). */
    amount: string;
    maximumValue: string;
    minimumOrderTotal: string;
    expirySeconds: number | null;
  };
  expiresAt: string;
  reason: string;
}
type RewardInput = RequestDataOf<'/loyalty-rewards', 'post'>['reward'];

/** Minor units of what a MoneyInput holds (validated before submit, so an error here cannot happen). */
const minorOf = (text: string, currency: string) => moneyValue(text, currency).minor ?? null;

/** The reward object of the form's type, only that type's fields (the API refuses the others). */
function rewardOf(values: IssueValues['reward'], currency: string): RewardInput {
  switch (values.type) {
    case 'amountCoupon':
      return {
        type: 'amountCoupon',
        amountCents: minorOf(values.amount, currency) ?? 0,
        productFilter: null,
        minimumOrderTotalCents: minorOf(values.minimumOrderTotal, currency),
      };
    case 'freeShipping':
      return { type: 'freeShipping', maximumValueCents: minorOf(values.maximumValue, currency) };
    case 'giftCard':
      return {
        type: 'giftCard',
        amountCents: minorOf(values.amount, currency) ?? 0,
        expirySeconds: values.expirySeconds,
      };
    default:
      return {
        type: 'percentageCoupon',
        percentageDiscount: Number(values.percentageDiscount),
        productFilter: null,
        minimumOrderTotalCents: minorOf(values.minimumOrderTotal, currency),
      };
  }
}

/** POST /loyalty-rewards: a coupon issued by hand, with an optional expiry and the reason shown on the feed. */
function IssueReward({
  membership,
  opened,
  onClose,
}: {
  membership: Membership;
  opened: boolean;
  onClose: () => void;
}) {
  const api = useApi();
  const format = useFormat();
  // A reward names no currency: its amounts are the organization's (lib/format-context.tsx).
  const currency = format.currency;
  const changed = useRewardsChanged();
  const money = (value: string) => moneyValue(value, currency).error ?? null;
  const form = useForm<IssueValues>({
    initialValues: {
      reward: {
        type: 'percentageCoupon',
        percentageDiscount: 10,
        amount: '',
        maximumValue: '',
        minimumOrderTotal: '',
        expirySeconds: null,
      },
      expiresAt: '',
      reason: '',
    },
    validate: {
      reward: {
        amount: (value, values) =>
          values.reward.type === 'amountCoupon' || values.reward.type === 'giftCard'
            ? value.trim()
              ? money(value)
              : 'Type the amount.'
            : null,
        maximumValue: money,
        minimumOrderTotal: money,
      },
    },
  });
  const issue = useMutation({
    mutationFn: (values: IssueValues) =>
      api.POST('/loyalty-rewards', {
        body: {
          data: {
            loyaltyMembershipId: membership.id,
            reward: rewardOf(values.reward, currency),
            // Typed as a wall-clock time in the organization's zone, as every time is shown.
            ...(values.expiresAt ? { expiresAt: wallTimeToInstant(values.expiresAt, format.timeZone) ?? '' } : {}),
            ...(values.reason.trim() ? { reason: values.reason.trim() } : {}),
          },
        },
      }),
    onSuccess: async (reward) => {
      await changed();
      notifySuccess(`Issued ${reward.code ?? 'the reward'}.`);
      close();
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const close = () => {
    issue.reset();
    form.reset();
    onClose();
  };
  const type = form.values.reward.type;
  return (
    <Modal {...CLOSE_LABEL} opened={opened} onClose={close} title="Issue a reward" size="lg">
      <form onSubmit={form.onSubmit((values) => issue.mutate(values))}>
        <Stack>
          <Select
            label="Reward"
            data={REWARD_TYPES}
            allowDeselect={false}
            required
            {...form.getInputProps('reward.type')}
          />
          {type === 'percentageCoupon' && (
            <NumberInput
              label="Discount (%)"
              required
              allowDecimal={false}
              {...form.getInputProps('reward.percentageDiscount')}
            />
          )}
          {(type === 'amountCoupon' || type === 'giftCard') && (
            <MoneyInput
              label="Amount"
              required
              currency={currency}
              data-testid="reward-amount"
              {...form.getInputProps('reward.amount')}
            />
          )}
          {(type === 'amountCoupon' || type === 'percentageCoupon') && (
            <MoneyInput
              label="Minimum order total"
              description="Empty: any order."
              currency={currency}
              {...form.getInputProps('reward.minimumOrderTotal')}
            />
          )}
          {type === 'freeShipping' && (
            <MoneyInput
              label="Maximum shipping value"
              description="Empty: no limit."
              currency={currency}
              {...form.getInputProps('reward.maximumValue')}
            />
          )}
          {type === 'giftCard' && (
            <DurationInput
              label="Gift card validity"
              description="Empty: the card does not lapse."
              testId="gift-card-validity"
              {...form.getInputProps('reward.expirySeconds')}
            />
          )}
          <TextInput
            type="datetime-local"
            label="Expires at"
            description={`Optional; otherwise the program's default expiry applies. ${format.zoneLabel}.`}
            {...form.getInputProps('expiresAt')}
          />
          <TextInput
            label="Reason"
            description="Shown on the member's activity."
            maxLength={1000}
            {...form.getInputProps('reason')}
          />
          <FormError error={issue.error} form={form} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={issue.isPending}>
              Issue reward
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
