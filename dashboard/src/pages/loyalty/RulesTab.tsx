import { useState } from 'react';
import { Badge, Button, Group, JsonInput, Modal, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PatronError, type RequestDataOf } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { applyApiErrors, fieldOf, FormError } from '../../components/FormErrors';
import { FormActions } from '../../components/FormActions';
import { PagedTable } from '../../components/PagedTable';
import {
  changedFields,
  describeRuleConfig,
  nameOf,
  RULES_KEY,
  SECTION_LABELS,
  usePrograms,
  type Rule,
  CLOSE_LABEL,
  notifySuccess,
} from './shared';
import { ProgramFilter } from './TiersTab';

type Section = Rule['section'];
type RuleConfig = RequestDataOf<'/loyalty-rules', 'post'>['config'];

const SECTIONS = Object.entries(SECTION_LABELS).map(([value, label]) => ({ value, label }));

/** A starting config for each section (docs/api.md, "Rule sections and configs"). */
function templateOf(section: Section): string {
  const inAWeek = new Date(Date.now() + 7 * 86_400_000);
  const templates: Record<Section, object> = {
    rules: { type: 'orderSpend', pointsPerUnit: 1, unitCents: 100, minimumOrderTotalCents: null },
    rewards: {
      pointsCost: 500,
      reward: { type: 'percentageCoupon', percentageDiscount: 10, productFilter: null, minimumOrderTotalCents: null },
    },
    offers: {
      type: 'pointsMultiplier',
      multiplier: 2,
      startsAt: new Date().toISOString(),
      endsAt: inAWeek.toISOString(),
    },
    stampCards: {
      stampsRequired: 10,
      stampsPerOrder: 1,
      minimumOrderTotalCents: null,
      reward: { type: 'freeShipping', maximumValueCents: null },
    },
  };
  return JSON.stringify(templates[section], null, 2);
}

const CONFIG_HELP: Record<Section, string> = {
  rules:
    '{ type: orderSpend, pointsPerUnit ≥ 1, unitCents (default 100), minimumOrderTotalCents | null } or { type: event, eventName, points ≥ 1, frequency: once | oncePerYear | unlimited }',
  rewards: '{ pointsCost ≥ 1, reward } (any reward type but points)',
  offers:
    '{ type: pointsMultiplier, multiplier 1..100, startsAt, endsAt } or { type: reward, reward, startsAt, endsAt }; endsAt after startsAt',
  stampCards: '{ stampsRequired 1..1000, reward, stampsPerOrder 0..1000 (default 1), minimumOrderTotalCents | null }',
};

/** Rules of every section: listed by program and section, created and edited (config as JSON), deleted. */
export function RulesTab() {
  const api = useApi();
  const programs = usePrograms();
  const canWrite = useCan('loyalty:write');
  const [program, setProgram] = useState<string | null>(null);
  const [section, setSection] = useState<string | null>(null);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const filter = { ...(program ? { loyaltyProgramId: program } : {}), ...(section ? { section } : {}) };
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Group gap="sm" align="flex-end" wrap="wrap" style={{ flex: 1 }}>
          <ProgramFilter value={program} onChange={setProgram} />
          <Select
            label="Section"
            placeholder="Every section"
            data={SECTIONS}
            value={section}
            onChange={setSection}
            clearable
            w={{ base: '100%', xs: 200 }}
          />
        </Group>
        {canWrite && <Button onClick={() => setEditing('new')}>New rule</Button>}
      </Group>
      <PagedTable<Rule>
        caption="Loyalty rules"
        queryKey={[...RULES_KEY, 'list', filter]}
        fetchPage={(cursor, signal) =>
          api.GET('/loyalty-rules', {
            params: {
              query: { cursor, limit: 50, ...(Object.keys(filter).length ? { filter: JSON.stringify(filter) } : {}) },
            },
            signal,
          })
        }
        rowKey={(rule) => rule.id}
        onRowClick={setEditing}
        empty="No rules yet."
        columns={[
          { key: 'name', header: 'Name', render: (rule) => rule.name },
          {
            key: 'section',
            header: 'Section',
            render: (rule) => <Badge variant="light">{SECTION_LABELS[rule.section]}</Badge>,
            visibleFrom: 'sm',
          },
          { key: 'config', header: 'What it does', render: (rule) => describeRuleConfig(rule), visibleFrom: 'md' },
          {
            key: 'active',
            header: 'Active',
            render: (rule) => (
              <Badge color={rule.isActive ? 'indigo' : 'gray'} variant="light">
                {rule.isActive ? 'Active' : 'Off'}
              </Badge>
            ),
          },
          {
            key: 'program',
            header: 'Program',
            render: (rule) => nameOf(programs.data, rule.loyaltyProgramId),
            visibleFrom: 'lg',
          },
        ]}
      />
      {editing && (
        <RuleForm rule={editing === 'new' ? null : editing} program={program} onClose={() => setEditing(null)} />
      )}
    </Stack>
  );
}

interface RuleValues {
  loyaltyProgramId: string | null;
  section: Section;
  name: string;
  isActive: boolean;
  config: string;
}

/** The error without the details that are about the config (the JSON editor shows those itself). */
function withoutConfigDetails(error: unknown): unknown {
  if (!(error instanceof PatronError)) return error;
  return new PatronError({
    status: error.status,
    code: error.code,
    message: error.message,
    details: error.details.filter((detail) => !/^config(\.|$)/.test(fieldOf(detail.path))),
    requestId: error.requestId,
    method: error.method,
    url: error.url,
  });
}

function RuleForm({ rule, program, onClose }: { rule: Rule | null; program: string | null; onClose: () => void }) {
  const api = useApi();
  const programs = usePrograms();
  const canWrite = useCan('loyalty:write');
  const queryClient = useQueryClient();
  const form = useForm<RuleValues>({
    initialValues: rule
      ? {
          loyaltyProgramId: rule.loyaltyProgramId,
          section: rule.section,
          name: rule.name,
          isActive: rule.isActive,
          config: JSON.stringify(rule.config, null, 2),
        }
      : {
          loyaltyProgramId: program ?? programs.data?.[0]?.id ?? null,
          section: 'rules',
          name: '',
          isActive: true,
          config: templateOf('rules'),
        },
    validate: {
      name: (value) => (value.trim() ? null : 'Enter a name.'),
      config: (value) => {
        try {
          const parsed: unknown = JSON.parse(value);
          return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? null : 'The config is a JSON object.';
        } catch {
          return 'This is not valid JSON.';
        }
      },
    },
  });
  const save = useMutation({
    mutationFn: async (values: RuleValues) => {
      const fields = {
        name: values.name.trim(),
        isActive: values.isActive,
        config: JSON.parse(values.config) as RuleConfig,
      };
      if (!rule)
        return api.POST('/loyalty-rules', {
          body: {
            data: {
              ...fields,
              section: values.section,
              ...(values.loyaltyProgramId ? { loyaltyProgramId: values.loyaltyProgramId } : {}),
            },
          },
        });
      const patch = changedFields(fields, rule);
      if (Object.keys(patch).length === 0) return rule;
      return api.PATCH('/loyalty-rules/{id}', { params: { path: { id: rule.id } }, body: { data: patch } });
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: RULES_KEY });
      notifySuccess(`Saved the rule ${saved.name}.`);
      onClose();
    },
    onError: (error) => {
      applyApiErrors(form, error);
      // The config is edited as JSON text: its details (body.data.config.pointsPerUnit …) go under the editor.
      if (error instanceof PatronError) {
        const messages = error.details
          .filter((detail) => /^config(\.|$)/.test(fieldOf(detail.path)))
          .map((detail) => {
            const inside = fieldOf(detail.path).replace(/^config\.?/, '');
            return inside ? `${inside}: ${detail.message}` : detail.message;
          });
        if (messages.length > 0) form.setFieldError('config', messages.join('; '));
      }
    },
  });
  const section = form.values.section;
  return (
    <Modal {...CLOSE_LABEL} opened onClose={onClose} title={rule ? `Edit rule ${rule.name}` : 'New rule'} size="lg">
      <form onSubmit={form.onSubmit((values) => save.mutate(values))}>
        <Stack>
          <Select
            label="Program"
            description={rule ? "A rule's program cannot change." : undefined}
            data={(programs.data ?? []).map((candidate) => ({ value: candidate.id, label: candidate.name }))}
            disabled={Boolean(rule) || !canWrite}
            allowDeselect={false}
            {...form.getInputProps('loyaltyProgramId')}
          />
          <Select
            label="Section"
            description={rule ? 'Fixed when the rule was created.' : 'What kind of rule it is.'}
            data={SECTIONS}
            disabled={Boolean(rule) || !canWrite}
            allowDeselect={false}
            {...form.getInputProps('section')}
            onChange={(value) => {
              if (!value) return;
              // A config still as the template was for the old section becomes the new section's template.
              if (form.values.config === templateOf(form.values.section) || !form.isDirty('config'))
                form.setFieldValue('config', templateOf(value as Section));
              form.setFieldValue('section', value as Section);
            }}
          />
          <TextInput label="Name" required maxLength={200} disabled={!canWrite} {...form.getInputProps('name')} />
          <Switch
            label="Active"
            description="Inactive rules neither earn nor issue."
            disabled={!canWrite}
            {...form.getInputProps('isActive', { type: 'checkbox' })}
          />
          <JsonInput
            label="Config"
            description={CONFIG_HELP[section]}
            autosize
            minRows={6}
            maxRows={18}
            formatOnBlur
            disabled={!canWrite}
            styles={{ input: { fontFamily: 'monospace' } }}
            {...form.getInputProps('config')}
          />
          <FormError error={withoutConfigDetails(save.error)} form={form} />
          {!canWrite && (
            <Text size="sm" c="dimmed">
              Changing rules needs the loyalty:write permission.
            </Text>
          )}
          <FormActions
            canWrite={canWrite}
            editing={Boolean(rule)}
            createLabel="Create rule"
            saving={save.isPending}
            onClose={onClose}
            deletion={
              rule && {
                title: `Delete the rule ${rule.name}?`,
                message: 'It stops applying at once. Rewards it issued keep pointing to it.',
                confirmLabel: 'Delete rule',
                onConfirm: async () => {
                  await api.DELETE('/loyalty-rules/{id}', { params: { path: { id: rule.id } } });
                  await queryClient.invalidateQueries({ queryKey: RULES_KEY });
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
