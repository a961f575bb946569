import '@mantine/dates/styles.css';
import { useMemo } from 'react';
import { Button, Group, Select } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
import { addDays, startOfDay, timeZones, todayIn, type CalendarDate } from '../lib/time';

/** A range of whole days, both ends included, in an IANA time zone. */
export interface DateRangeZone {
  from: CalendarDate;
  to: CalendarDate;
  timezone: string;
}

/** The last `days` days up to today in `timezone`. */
export function lastDays(days: number, timezone: string): DateRangeZone {
  const to = todayIn(timezone);
  return { from: addDays(to, -(days - 1)), to, timezone };
}

/**
 * The range as a filter on a timestamp field (docs/api.md#filter-documents): from the first instant of `from` up to,
 * not including, the first instant of the day after `to`, both in the range's zone.
 */
export function rangeFilter(range: DateRangeZone): { $gte: string; $lt: string } {
  return { $gte: startOfDay(range.from, range.timezone), $lt: startOfDay(addDays(range.to, 1), range.timezone) };
}

const PRESETS = [7, 30, 90] as const;

export interface DateRangeZonePickerProps {
  value: DateRangeZone;
  onChange: (value: DateRangeZone) => void;
}

/** Picks a range of days (calendar or presets) and the time zone the days are in. */
export function DateRangeZonePicker({ value, onChange }: DateRangeZonePickerProps) {
  const zones = useMemo(() => {
    const all = timeZones();
    return all.includes(value.timezone) ? all : [value.timezone, ...all];
  }, [value.timezone]);
  return (
    <Group gap="xs" align="flex-end" wrap="wrap">
      <DatePickerInput
        type="range"
        label="Dates"
        allowSingleDateInRange
        valueFormat="MMM D, YYYY"
        value={[value.from, value.to]}
        onChange={([from, to]) => {
          if (from && to) onChange({ ...value, from, to });
        }}
        maxDate={todayIn(value.timezone)}
        w={{ base: '100%', xs: 260 }}
      />
      <Select
        label="Time zone"
        data={zones}
        value={value.timezone}
        onChange={(timezone) => timezone && onChange({ ...value, timezone })}
        searchable
        allowDeselect={false}
        w={{ base: '100%', xs: 220 }}
        comboboxProps={{ withinPortal: true }}
      />
      <Group gap={4} role="group" aria-label="Quick ranges">
        {PRESETS.map((days) => (
          <Button key={days} size="xs" variant="default" onClick={() => onChange(lastDays(days, value.timezone))}>
            {days} days
          </Button>
        ))}
      </Group>
    </Group>
  );
}
