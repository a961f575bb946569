import { useState } from 'react';
import { Button, Group, Modal, NumberInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RequestDataOf } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { FormActions } from '../../components/FormActions';
import { PagedTable } from '../../components/PagedTable';
import { activeFormat } from '../../lib/format';
import {
  changedFields,
  describeExpiry,
  describeTierWindow,
  PROGRAMS_KEY,
  toLocalInput,
  fromLocalInput,
  type Program,
  CLOSE_LABEL,
  notifySuccess,
} from './shared';

type ProgramBody = RequestDataOf<'/loyalty-programs', 'post'>;
type NumberField = number | string;
interface ProgramValues {
  name: string;
  pointsName: string;
  defaultRewardExpiry: { type: string; days: NumberField; expiresAt: string };
  pointsExpiry: { type: string; days: NumberField };
  tierWindow: { type: string; months: NumberField };
}

const blank: ProgramValues = {
  name: '',
  pointsName: 'points',
  defaultRewardExpiry: { type: 'never', days: 90, expiresAt: '' },
  pointsExpiry: { type: 'never', days: 365 },
  tierWindow: { type: 'lifetime', months: 12 },
};

function valuesOf(program: Program): ProgramValues {
  const reward = program.defaultRewardExpiry as Record<string, unknown>;
  const points = program.pointsExpiry as Record<string, unknown>;
  const window = program.tierWindow as Record<string, unknown>;
  return {
    name: program.name,
    pointsName: program.pointsName,
    defaultRewardExpiry: {
      type: String(reward.type),
      days: typeof reward.days === 'number' ? reward.days : blank.defaultRewardExpiry.days,
      expiresAt: toLocalInput(typeof reward.expiresAt === 'string' ? reward.expiresAt : null),
    },
    pointsExpiry: {
      type: String(points.type),
      days: typeof points.days === 'number' ? points.days : blank.pointsExpiry.days,
    },
    tierWindow: {
      type: String(window.type),
      months: typeof window.months === 'number' ? window.months : blank.tierWindow.months,
    },
  };
}

/** The body of the form's values: each expiry and window with only its type's fields. */
function bodyOf(values: ProgramValues): ProgramBody {
  const reward = values.defaultRewardExpiry;
  return {
    name: values.name.trim(),
    pointsName: values.pointsName.trim(),
    defaultRewardExpiry:
      reward.type === 'daysAfterIssuance'
        ? { type: 'daysAfterIssuance', days: Number(reward.days) }
        : reward.type === 'fixedDate'
          ? { type: 'fixedDate', expiresAt: fromLocalInput(reward.expiresAt) }
          : { type: 'never' },
    pointsExpiry:
      values.pointsExpiry.type === 'daysAfterEarning'
        ? { type: 'daysAfterEarning', days: Number(values.pointsExpiry.days) }
        : { type: 'never' },
    tierWindow:
      values.tierWindow.type === 'rolling'
        ? { type: 'rolling', months: Number(values.tierWindow.months) }
        : { type: 'lifetime' },
  };
}

/** Programs: listed, created and edited (name, points name, expiries, tier window), deleted. */
export function ProgramsTab() {
  const api = useApi();
  const canWrite = useCan('loyalty:write');
  const [editing, setEditing] = useState<Program | 'new' | null>(null);
  return (
    <Stack>
      {canWrite && (
        <Group justify="flex-end">
          <Button onClick={() => setEditing('new')}>New program</Button>
        </Group>
      )}
      <PagedTable<Program>
        caption="Loyalty programs"
        queryKey={[...PROGRAMS_KEY, 'list']}
        fetchPage={(cursor, signal) =>
          api.GET('/loyalty-programs', { params: { query: { cursor, limit: 50 } }, signal })
        }
        rowKey={(program) => program.id}
        onRowClick={setEditing}
        empty="No programs."
        columns={[
          { key: 'name', header: 'Name', render: (program) => program.name },
          { key: 'pointsName', header: 'Points are called', render: (program) => program.pointsName },
          {
            key: 'pointsExpiry',
            header: 'Points expire',
            render: (program) => describeExpiry(program.pointsExpiry),
            visibleFrom: 'sm',
          },
          {
            key: 'rewardExpiry',
            header: 'Rewards expire',
            render: (program) => describeExpiry(program.defaultRewardExpiry),
            visibleFrom: 'md',
          },
          {
            key: 'tierWindow',
            header: 'Tiers follow',
            render: (program) => describeTierWindow(program.tierWindow),
            visibleFrom: 'md',
          },
        ]}
      />
      {editing && <ProgramForm program={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Stack>
  );
}

function ProgramForm({ program, onClose }: { program: Program | null; onClose: () => void }) {
  const api = useApi();
  const canWrite = useCan('loyalty:write');
  const queryClient = useQueryClient();
  const form = useForm<ProgramValues>({
    initialValues: program ? valuesOf(program) : blank,
    validate: { name: (value) => (value.trim() ? null : 'Enter a name.') },
  });
  const save = useMutation({
    mutationFn: async (values: ProgramValues) => {
      const body = bodyOf(values);
      if (!program) return api.POST('/loyalty-programs', { body: { data: body } });
      const changed = changedFields(body, program);
      if (Object.keys(changed).length === 0) return program;
      return api.PATCH('/loyalty-programs/{id}', { params: { path: { id: program.id } }, body: { data: changed } });
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: PROGRAMS_KEY });
      notifySuccess(`Saved the program ${saved.name}.`);
      onClose();
    },
    onError: (error) => applyApiErrors(form, error),
  });
  const values = form.values;
  return (
    <Modal
      {...CLOSE_LABEL}
      opened
      onClose={onClose}
      title={program ? `Edit ${program.name}` : 'New loyalty program'}
      size="lg"
    >
      <form onSubmit={form.onSubmit((submitted) => save.mutate(submitted))}>
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Name" required maxLength={200} disabled={!canWrite} {...form.getInputProps('name')} />
            <TextInput
              label="Points are called"
              description="e.g. points, stars"
              maxLength={50}
              disabled={!canWrite}
              {...form.getInputProps('pointsName')}
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="Points expire"
              data={[
                { value: 'never', label: 'Never' },
                { value: 'daysAfterEarning', label: 'Days after earning' },
              ]}
              allowDeselect={false}
              disabled={!canWrite}
              {...form.getInputProps('pointsExpiry.type')}
            />
            {values.pointsExpiry.type === 'daysAfterEarning' && (
              <NumberInput
                label="Days (points)"
                description="1 to 3650"
                allowDecimal={false}
                disabled={!canWrite}
                {...form.getInputProps('pointsExpiry.days')}
              />
            )}
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="Rewards expire by default"
              data={[
                { value: 'never', label: 'Never' },
                { value: 'daysAfterIssuance', label: 'Days after issue' },
                { value: 'fixedDate', label: 'On a date' },
              ]}
              allowDeselect={false}
              disabled={!canWrite}
              {...form.getInputProps('defaultRewardExpiry.type')}
            />
            {values.defaultRewardExpiry.type === 'daysAfterIssuance' && (
              <NumberInput
                label="Days (rewards)"
                description="1 to 3650"
                allowDecimal={false}
                disabled={!canWrite}
                {...form.getInputProps('defaultRewardExpiry.days')}
              />
            )}
            {values.defaultRewardExpiry.type === 'fixedDate' && (
              <TextInput
                type="datetime-local"
                label="Rewards expire at"
                description={activeFormat().zoneLabel}
                disabled={!canWrite}
                {...form.getInputProps('defaultRewardExpiry.expiresAt')}
              />
            )}
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="Tiers follow"
              data={[
                { value: 'lifetime', label: 'Lifetime points' },
                { value: 'rolling', label: 'Points of the last months' },
              ]}
              allowDeselect={false}
              disabled={!canWrite}
              {...form.getInputProps('tierWindow.type')}
            />
            {values.tierWindow.type === 'rolling' && (
              <NumberInput
                label="Months"
                description="1 to 120"
                allowDecimal={false}
                disabled={!canWrite}
                {...form.getInputProps('tierWindow.months')}
              />
            )}
          </SimpleGrid>
          {program && values.tierWindow.type !== (program.tierWindow as { type: string }).type && (
            <Text size="sm" c="dimmed">
              Changing how tiers are counted reschedules every member&apos;s tier review; nobody is moved down at once.
            </Text>
          )}
          <FormError error={save.error} form={form} />
          <FormActions
            canWrite={canWrite}
            editing={Boolean(program)}
            createLabel="Create program"
            saving={save.isPending}
            onClose={onClose}
            deletion={
              program && {
                title: `Delete ${program.name}?`,
                message:
                  'Its tiers and rules are deleted with it. A program with members, or the last program, cannot be deleted.',
                confirmLabel: 'Delete program',
                onConfirm: async () => {
                  await api.DELETE('/loyalty-programs/{id}', { params: { path: { id: program.id } } });
                  await queryClient.invalidateQueries({ queryKey: PROGRAMS_KEY });
                  onClose();
                },
              }
            }
          />
        </Stack>
      </form>
    </Modal>
  );
}
