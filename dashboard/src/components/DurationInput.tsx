import { Fieldset, Group, NumberInput, Text } from '@mantine/core';
import { useFormat } from '../lib/format-context';
import { splitDuration } from '../lib/format';

export interface DurationInputProps {
  /** The legend of the three fields, e.g. "Gift card validity". */
  label: string;
  /** Seconds, as the API keeps durations; null when nothing is typed. */
  value?: number | null;
  onChange: (seconds: number | null) => void;
  description?: string;
  error?: React.ReactNode;
  disabled?: boolean;
  testId?: string;
}

/**
 * A duration typed in days, hours and minutes and kept in seconds (docs/dashboard.md#money-time-and-locale). The
 * three fields are one group with one legend; what they add up to is read back under them ("= 2 days, 3 hours").
 */
export function DurationInput({
  label,
  value = null,
  onChange,
  description,
  error,
  disabled,
  testId,
}: DurationInputProps) {
  const format = useFormat();
  const parts = value === null ? null : splitDuration(value);
  const change = (unit: 'days' | 'hours' | 'minutes', typed: string | number) => {
    const next = { days: 0, hours: 0, minutes: 0, ...parts, [unit]: typed === '' ? 0 : Number(typed) };
    const seconds = ((next.days * 24 + next.hours) * 60 + next.minutes) * 60;
    onChange(seconds === 0 && typed === '' && !parts ? null : seconds);
  };
  const field = (unit: 'days' | 'hours' | 'minutes', unitLabel: string, max?: number) => (
    <NumberInput
      label={unitLabel}
      min={0}
      max={max}
      allowDecimal={false}
      allowNegative={false}
      value={parts ? parts[unit] : ''}
      onChange={(typed) => change(unit, typed)}
      disabled={disabled}
      w={96}
      data-testid={testId ? `${testId}-${unit}` : undefined}
    />
  );
  return (
    <Fieldset
      variant="unstyled"
      legend={label}
      styles={{ root: { padding: 0 }, legend: { fontSize: 'var(--mantine-font-size-sm)', fontWeight: 600 } }}
      data-testid={testId}
    >
      <Group gap="xs" align="flex-end" wrap="wrap">
        {field('days', 'Days')}
        {field('hours', 'Hours', 23)}
        {field('minutes', 'Minutes', 59)}
      </Group>
      <Text size="xs" c="dimmed" mt={4}>
        {description ? `${description} ` : ''}
        {value === null ? 'Not set.' : `= ${format.duration(value)}`}
      </Text>
      {error ? (
        <Text size="xs" c="red.9" mt={4} role="alert">
          {error}
        </Text>
      ) : null}
    </Fieldset>
  );
}
