import { Text } from '@mantine/core';
import { PageHeader } from '../components/PageHeader';

/** A section whose page is not built yet: its heading and what it will hold. */
export function PlaceholderPage({ title, plans }: { title: string; plans: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Text c="dimmed">{plans}</Text>
    </>
  );
}
