import { Button, Group } from '@mantine/core';
import { ConfirmButton } from './ConfirmDialog';

export interface FormActionsProps {
  /** Without write access the form is read-only: one Close button and nothing else. */
  canWrite: boolean;
  /** Whether the record exists (Save, and Delete when `deletion` is given) or is being created. */
  editing: boolean;
  /** The submit button's words when creating, e.g. "Create tier". */
  createLabel: string;
  saving: boolean;
  onClose: () => void;
  /** Delete, behind a confirmation, offered on an existing record to whoever may write. */
  deletion?: { title: string; message: string; confirmLabel: string; onConfirm: () => Promise<void> } | null;
}

/** The foot of a create-or-edit form in a dialog: Delete on the left; Cancel and Save (or Create) on the right. */
export function FormActions({ canWrite, editing, createLabel, saving, onClose, deletion }: FormActionsProps) {
  return (
    <Group justify="space-between">
      {editing && canWrite && deletion ? (
        <ConfirmButton
          title={deletion.title}
          message={deletion.message}
          confirmLabel={deletion.confirmLabel}
          onConfirm={deletion.onConfirm}
        >
          Delete
        </ConfirmButton>
      ) : (
        <span />
      )}
      <Group gap="xs">
        <Button variant="default" onClick={onClose}>
          {canWrite ? 'Cancel' : 'Close'}
        </Button>
        {canWrite && (
          <Button type="submit" loading={saving}>
            {editing ? 'Save' : createLabel}
          </Button>
        )}
      </Group>
    </Group>
  );
}
