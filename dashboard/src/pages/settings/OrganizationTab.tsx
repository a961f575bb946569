import { useEffect, useMemo } from 'react';
import { Button, Center, Group, Loader, NumberInput, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RequestBodyOf, ResponseDataOf } from '@patron/client/browser';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { applyApiErrors, FormError } from '../../components/FormErrors';
import { formatInteger } from '../../lib/format';
import { timeZones } from '../../lib/time';

type Organization = ResponseDataOf<'/organization', 'get'>;
type OrganizationPatch = RequestBodyOf<'/organization', 'patch'>;

const valuesOf = (organization: Organization) => ({
  name: organization.name,
  timezone: organization.timezone,
  settings: { ...organization.settings },
});

/** GET and PATCH /v1/organization (docs/api.md#organization-settings): name, time zone and settings. */
export function OrganizationTab() {
  const api = useApi();
  const query = useQuery({ queryKey: ['organization'], queryFn: ({ signal }) => api.GET('/organization', { signal }) });
  if (query.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading the organization" />
      </Center>
    );
  }
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  return <OrganizationForm organization={query.data} />;
}

function OrganizationForm({ organization }: { organization: Organization }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const canWrite = useCan('organization:write');
  const zones = useMemo(() => {
    const all = timeZones();
    return all.includes(organization.timezone) ? all : [organization.timezone, ...all];
  }, [organization.timezone]);
  const form = useForm({
    initialValues: valuesOf(organization),
    validate: {
      name: (value: string) => (value.trim() === '' ? 'Enter a name.' : null),
    },
  });
  const { setValues, resetDirty } = form;
  useEffect(() => {
    // A newer organization from the server (after saving) becomes what the form starts from.
    setValues(valuesOf(organization));
    resetDirty(valuesOf(organization));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [organization]);

  const mutation = useMutation({
    mutationFn: (body: OrganizationPatch) => api.PATCH('/organization', { body }),
    onSuccess: (updated) => {
      queryClient.setQueryData(['organization'], updated);
      notifications.show({ color: 'green', message: 'The organization settings were saved.' });
    },
    onError: (error) => applyApiErrors(form, error),
  });

  return (
    <form onSubmit={form.onSubmit((values) => mutation.mutate({ data: { ...values, name: values.name.trim() } }))}>
      <Stack maw={560}>
        {!canWrite && (
          <Text size="sm" c="dimmed">
            You can read these settings; changing them needs the organization:write permission.
          </Text>
        )}
        <TextInput label="Name" required disabled={!canWrite} {...form.getInputProps('name')} />
        <Select
          label="Time zone"
          description="Analytics and the nightly jobs use it."
          data={zones}
          searchable
          allowDeselect={false}
          disabled={!canWrite}
          {...form.getInputProps('timezone')}
        />
        <NumberInput
          label="Reviews before a summary"
          description="Published reviews a product needs before it gets a review summary (1 to 100)."
          min={1}
          max={100}
          allowDecimal={false}
          disabled={!canWrite}
          {...form.getInputProps('settings.reviewSummaryMinReviews')}
        />
        <NumberInput
          label="Expiring-soon notice (days)"
          description="How many days ahead the expiring-soon events warn (1 to 90)."
          min={1}
          max={90}
          allowDecimal={false}
          disabled={!canWrite}
          {...form.getInputProps('settings.expiringSoonDays')}
        />
        <Switch
          label="Delete a product's reviews with the product"
          description="Off: deleting a product unlinks and unpublishes its reviews instead."
          disabled={!canWrite}
          {...form.getInputProps('settings.cascadeDeleteReviews', { type: 'checkbox' })}
        />
        <Text size="sm" c="dimmed">
          Plan (set by the operator): {formatInteger(organization.plan.apiRequestsPerMinute)} API requests,{' '}
          {formatInteger(organization.plan.loyaltyEventsPerMinute)} loyalty events and{' '}
          {formatInteger(organization.plan.loyaltyStampsPerMinute)} stamps per minute.
        </Text>
        <FormError error={mutation.error} form={form} />
        {canWrite && (
          <Group>
            <Button type="submit" loading={mutation.isPending} disabled={!form.isDirty()}>
              Save
            </Button>
            <Button variant="default" onClick={() => form.setValues(valuesOf(organization))} disabled={!form.isDirty()}>
              Discard changes
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
