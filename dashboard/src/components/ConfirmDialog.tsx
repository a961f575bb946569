import { useState, type ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import { ApiErrorAlert } from './ApiErrorAlert';

export interface ConfirmDialogProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** What will happen, in a sentence or two. */
  message: ReactNode;
  /** The confirming button's label, a verb: "Revoke key". */
  confirmLabel: string;
  /** Red confirming button (deleting, revoking). Default true. */
  danger?: boolean;
  /** The action; the dialog closes when it resolves and shows the error when it rejects. */
  onConfirm: () => Promise<unknown>;
}

/** Asks before an action that cannot be undone; shows the API's answer if the action fails. */
export function ConfirmDialog({
  opened,
  onClose,
  title,
  message,
  confirmLabel,
  danger = true,
  onConfirm,
}: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => {
    if (busy) return;
    setError(null);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setBusy(false);
      onClose();
    } catch (failure) {
      setBusy(false);
      setError(failure);
    }
  };
  return (
    <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        {typeof message === 'string' ? <Text size="sm">{message}</Text> : message}
        {error !== null && <ApiErrorAlert error={error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={busy}>
            Cancel
          </Button>
          <Button color={danger ? 'red' : undefined} onClick={confirm} loading={busy}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export type ConfirmButtonProps = Omit<ConfirmDialogProps, 'opened' | 'onClose'> & {
  /** The button that opens the dialog. */
  children: ReactNode;
  buttonProps?: ButtonProps;
};

/** A button that opens a ConfirmDialog: `<ConfirmButton title=… message=… confirmLabel=… onConfirm=…>Revoke</ConfirmButton>`. */
export function ConfirmButton({ children, buttonProps, danger = true, ...dialog }: ConfirmButtonProps) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button
        color={danger ? 'red' : undefined}
        variant="light"
        size="xs"
        {...buttonProps}
        onClick={() => setOpened(true)}
      >
        {children}
      </Button>
      <ConfirmDialog {...dialog} danger={danger} opened={opened} onClose={() => setOpened(false)} />
    </>
  );
}
