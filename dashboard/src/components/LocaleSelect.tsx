import { useState } from 'react';
import { Select } from '@mantine/core';
import { setLocale } from '../api/contract';
import { useSession, useSetSession } from '../api/session';
import type { Session } from '../api/contract';

type Locale = Session['user']['locale'];

/** The locales the API accepts (docs/api.md#users-and-roles), each named in its own language. */
const LOCALES: { value: Locale; label: string }[] = [
  { value: 'en', label: 'English' },
  { value: 'de', label: 'Deutsch' },
];

/**
 * The signed-in user's language and formats (docs/dashboard.md#money-time-and-locale): stored with the user by
 * `PATCH /v1/session`, so it follows them to every browser; the session's answer brings it back and every format of
 * the dashboard follows at once.
 */
export function LocaleSelect({ testId = 'locale-select' }: { testId?: string }) {
  const session = useSession();
  const setSession = useSetSession();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onChange = async (value: string | null) => {
    if (!value || value === session.user.locale) return;
    setSaving(true);
    setError(null);
    try {
      setSession(await setLocale(session.csrfToken, value as Locale));
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'The language could not be changed.');
    } finally {
      setSaving(false);
    }
  };
  return (
    <Select
      aria-label="Language and formats"
      data={LOCALES}
      value={session.user.locale}
      onChange={(value) => void onChange(value)}
      allowDeselect={false}
      disabled={saving}
      error={error}
      size="xs"
      w={112}
      data-testid={testId}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
