import { useEffect } from 'react';
import { Button, Group, Stack, TagsInput, Text, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { applyApiErrors, FormError } from '../../components/FormErrors';

export interface TagsNotes {
  tags: string[];
  notes: string;
}

/**
 * The merchant's own fields of a store record (tags, the full set; notes): store fields come from imports and are
 * read-only (docs/api.md#store-data). Read-only without the write permission.
 */
export function TagsNotesForm({
  initial,
  canWrite,
  permission,
  save,
  noun,
}: {
  initial: TagsNotes;
  canWrite: boolean;
  permission: string;
  save: (values: TagsNotes) => Promise<unknown>;
  noun: string;
}) {
  const form = useForm<TagsNotes>({ initialValues: initial });
  const key = JSON.stringify(initial);
  const { setValues, resetDirty } = form;
  useEffect(() => {
    const values = JSON.parse(key) as TagsNotes;
    setValues(values);
    resetDirty(values);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: () =>
      notifications.show({
        color: 'green',
        closeButtonProps: { 'aria-label': 'Close' },
        message: `The ${noun} was saved.`,
      }),
    // A tag's detail (`body.tags[2]`) goes under the tags input, which shows the whole set.
    onError: (error) =>
      applyApiErrors(
        {
          values: form.values,
          setErrors: (errors) =>
            form.setErrors(
              Object.fromEntries(Object.entries(errors).map(([k, v]) => [k.startsWith('tags.') ? 'tags' : k, v])),
            ),
        },
        error,
      ),
  });
  return (
    <form onSubmit={form.onSubmit((values) => mutation.mutate(values))}>
      <Stack gap="sm">
        {!canWrite && (
          <Text size="sm" c="dimmed">
            Changing tags and notes needs the {permission} permission.
          </Text>
        )}
        <TagsInput
          label="Tags"
          description="Press Enter after each tag; the set replaces the stored one."
          disabled={!canWrite}
          {...form.getInputProps('tags')}
        />
        <Textarea
          label="Notes"
          autosize
          minRows={2}
          maxRows={8}
          disabled={!canWrite}
          {...form.getInputProps('notes')}
        />
        <FormError error={mutation.error} form={form} />
        {canWrite && (
          <Group>
            <Button type="submit" loading={mutation.isPending} disabled={!form.isDirty()}>
              Save tags and notes
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
