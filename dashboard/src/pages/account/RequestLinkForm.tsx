import { Alert, Button, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { requestPasswordReset } from '../../api/contract';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { applyApiErrors } from '../../components/FormErrors';

export interface RequestLinkFormProps {
  /** The submit button's label. */
  submitLabel?: string;
  /** The email to start with (e.g. what the sign-in form held). */
  initialEmail?: string;
}

/**
 * "Forgot password?": asks the API to mail a one-time sign-in link (docs/dashboard.md#passwords-and-sign-in-links).
 * The confirmation is neutral, the API's own words: it never says whether the email has an account.
 */
export function RequestLinkForm({ submitLabel = 'Email me a sign-in link', initialEmail = '' }: RequestLinkFormProps) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { email: initialEmail },
    validate: { email: (value) => (/^\S+@\S+$/.test(value.trim()) ? null : 'Enter your email address.') },
  });
  const mutation = useMutation({
    mutationFn: (email: string) => requestPasswordReset(email),
    onError: (error) => applyApiErrors(form, error),
  });

  if (mutation.isSuccess) {
    return (
      <Alert color="green" title="Check your email" role="status" data-testid="reset-requested">
        <Stack gap="xs">
          <Text size="sm">{mutation.data.message}</Text>
          <Text size="sm">
            Nothing after a few minutes? Check the address you typed, then{' '}
            <Button variant="subtle" size="compact-sm" onClick={() => mutation.reset()}>
              ask again
            </Button>
          </Text>
        </Stack>
      </Alert>
    );
  }
  return (
    <form onSubmit={form.onSubmit((values) => mutation.mutate(values.email.trim()))} noValidate>
      <Stack>
        <TextInput
          label="Email"
          type="email"
          autoComplete="username"
          required
          key={form.key('email')}
          {...form.getInputProps('email')}
        />
        {mutation.isError && <ApiErrorAlert error={mutation.error} title="Could not send a link" showDetails={false} />}
        <Button type="submit" loading={mutation.isPending} fullWidth>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
