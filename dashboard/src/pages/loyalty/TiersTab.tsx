import { useState } from 'react';
import { Button, Group, Modal, NumberInput, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi, useCan } from '../../api/session';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { FormActions } from '../../components/FormActions';
import { PagedTable } from '../../components/PagedTable';
import { formatInteger } from '../../lib/format';
import {
  changedFields,
  MEMBERSHIPS_KEY,
  nameOf,
  TIERS_KEY,
  usePrograms,
  type Tier,
  CLOSE_LABEL,
  notifySuccess,
} from './shared';

/** A program picker over the organization's programs ("Every program" when `allowAll`). */
export function ProgramFilter({ value, onChange }: { value: string | null; onChange: (value: string | null) => void }) {
  const programs = usePrograms();
  return (
    <Select
      label="Program"
      placeholder="Every program"
      data={(programs.data ?? []).map((program) => ({ value: program.id, label: program.name }))}
      value={value}
      onChange={onChange}
      clearable
      w={{ base: '100%', xs: 240 }}
    />
  );
}

/** Tiers: listed by program, created and edited (name, threshold, position), deleted. */
export function TiersTab() {
  const api = useApi();
  const programs = usePrograms();
  const canWrite = useCan('loyalty:write');
  const [program, setProgram] = useState<string | null>(null);
  const [editing, setEditing] = useState<Tier | 'new' | null>(null);
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <ProgramFilter value={program} onChange={setProgram} />
        {canWrite && <Button onClick={() => setEditing('new')}>New tier</Button>}
      </Group>
      <PagedTable<Tier>
        caption="Loyalty tiers"
        queryKey={[...TIERS_KEY, 'list', { program }]}
        fetchPage={(cursor, signal) =>
          api.GET('/loyalty-tiers', {
            params: {
              query: {
                cursor,
                limit: 50,
                ...(program ? { filter: JSON.stringify({ loyaltyProgramId: program }) } : {}),
              },
            },
            signal,
          })
        }
        rowKey={(tier) => tier.id}
        onRowClick={setEditing}
        empty="No tiers yet."
        columns={[
          { key: 'name', header: 'Name', render: (tier) => tier.name },
          { key: 'threshold', header: 'From points', render: (tier) => formatInteger(tier.thresholdPoints) },
          { key: 'position', header: 'Position', render: (tier) => formatInteger(tier.position), visibleFrom: 'sm' },
          {
            key: 'program',
            header: 'Program',
            render: (tier) => nameOf(programs.data, tier.loyaltyProgramId),
            visibleFrom: 'sm',
          },
        ]}
      />
      {editing && (
        <TierForm tier={editing === 'new' ? null : editing} program={program} onClose={() => setEditing(null)} />
      )}
    </Stack>
  );
}

interface TierValues {
  loyaltyProgramId: string | null;
  name: string;
  thresholdPoints: number | string;
  position: number | string;
}

function TierForm({ tier, program, onClose }: { tier: Tier | null; program: string | null; onClose: () => void }) {
  const api = useApi();
  const programs = usePrograms();
  const canWrite = useCan('loyalty:write');
  const queryClient = useQueryClient();
  const form = useForm<TierValues>({
    initialValues: tier
      ? {
          loyaltyProgramId: tier.loyaltyProgramId,
          name: tier.name,
          thresholdPoints: tier.thresholdPoints,
          position: tier.position,
        }
      : { loyaltyProgramId: program ?? programs.data?.[0]?.id ?? null, name: '', thresholdPoints: '', position: 0 },
    validate: {
      name: (value) => (value.trim() ? null : 'Enter a name.'),
      thresholdPoints: (value) => (value === '' ? 'Enter the points a member needs.' : null),
    },
  });
  const changed = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: TIERS_KEY }),
      // A new tier or threshold recalculates the program's members.
      queryClient.invalidateQueries({ queryKey: MEMBERSHIPS_KEY }),
    ]);
  const save = useMutation({
    mutationFn: async (values: TierValues) => {
      const fields = {
        name: values.name.trim(),
        thresholdPoints: Number(values.thresholdPoints),
        position: values.position === '' ? 0 : Number(values.position),
      };
      if (!tier)
        return api.POST('/loyalty-tiers', {
          body: {
            data: { ...fields, ...(values.loyaltyProgramId ? { loyaltyProgramId: values.loyaltyProgramId } : {}) },
          },
        });
      const patch = changedFields(fields, tier);
      if (Object.keys(patch).length === 0) return tier;
      return api.PATCH('/loyalty-tiers/{id}', { params: { path: { id: tier.id } }, body: { data: patch } });
    },
    onSuccess: async (saved) => {
      await changed();
      notifySuccess(`Saved the tier ${saved.name}.`);
      onClose();
    },
    onError: (error) => applyApiErrors(form, error),
  });
  return (
    <Modal {...CLOSE_LABEL} opened onClose={onClose} title={tier ? `Edit tier ${tier.name}` : 'New tier'}>
      <form onSubmit={form.onSubmit((values) => save.mutate(values))}>
        <Stack>
          <Select
            label="Program"
            description={tier ? "A tier's program cannot change." : undefined}
            data={(programs.data ?? []).map((candidate) => ({ value: candidate.id, label: candidate.name }))}
            disabled={Boolean(tier) || !canWrite}
            allowDeselect={false}
            {...form.getInputProps('loyaltyProgramId')}
          />
          <TextInput label="Name" required maxLength={200} disabled={!canWrite} {...form.getInputProps('name')} />
          <NumberInput
            label="From points"
            description="Unique within the program; members at or above it hold the tier."
            required
            min={0}
            allowDecimal={false}
            disabled={!canWrite}
            {...form.getInputProps('thresholdPoints')}
          />
          <NumberInput
            label="Position"
            description="Display order."
            min={0}
            allowDecimal={false}
            disabled={!canWrite}
            {...form.getInputProps('position')}
          />
          <FormError error={save.error} form={form} />
          <FormActions
            canWrite={canWrite}
            editing={Boolean(tier)}
            createLabel="Create tier"
            saving={save.isPending}
            onClose={onClose}
            deletion={
              tier && {
                title: `Delete the tier ${tier.name}?`,
                message: 'A tier that members hold cannot be deleted.',
                confirmLabel: 'Delete tier',
                onConfirm: async () => {
                  await api.DELETE('/loyalty-tiers/{id}', { params: { path: { id: tier.id } } });
                  await changed();
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
