import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi, useCan } from '../../api/session';
import { ApiErrorAlert, ConfirmButton } from '../../components';
import { formatDateTime, formatInteger } from '../../lib/format';
import {
  ProductSelect,
  Prose,
  StatusBadge,
  SUMMARY_KEY,
  useUrlParam,
  type Summary,
  type SummaryVersion,
} from './shared';

const SENTIMENT_COLOR = { positive: 'green', negative: 'red', mixed: 'yellow' } as const;

/** How long the page keeps reading a summary after a regeneration was queued, waiting for the new one. */
const WAIT_FOR_REGENERATION_MS = 60_000;

/** A product's review summary: read it, hide or show it, regenerate it, accept or revert the latest generation. */
export function SummariesTab() {
  const [product, setProduct] = useUrlParam('product');
  return (
    <Stack>
      <Group gap="sm" align="flex-end">
        <ProductSelect
          value={product}
          onChange={setProduct}
          clearable={false}
          placeholder="Choose a product"
          label="Product"
        />
      </Group>
      {product ? (
        <SummaryOfProduct key={product} productId={product} />
      ) : (
        <Text c="dimmed" py="lg" ta="center">
          Choose a product to see what its reviews say.
        </Text>
      )}
    </Stack>
  );
}

function SummaryOfProduct({ productId }: { productId: string }) {
  const api = useApi();
  const canWrite = useCan('reviews:write');
  const queryClient = useQueryClient();
  const key = [...SUMMARY_KEY, productId];
  // After a regeneration is queued: the summary it replaces (generatedAt), and whether the wait is over.
  const [waiting, setWaiting] = useState<{ since: string | null; timedOut: boolean } | null>(null);
  const waitingSince = waiting?.since;
  useEffect(() => {
    if (waitingSince === undefined) return;
    const timer = setTimeout(
      () => setWaiting((current) => current && { ...current, timedOut: true }),
      WAIT_FOR_REGENERATION_MS,
    );
    return () => clearTimeout(timer);
  }, [waitingSince]);
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api.GET('/products/{id}/review-summary', { params: { path: { id: productId } }, signal }),
    refetchInterval: (current) => {
      if (!waiting || waiting.timedOut) return false;
      const generatedAt = current.state.data?.generatedAt ?? null;
      return generatedAt === waiting.since ? 1_000 : false;
    },
  });
  const organization = useQuery({
    queryKey: ['organization'],
    queryFn: ({ signal }) => api.GET('/organization', { signal }),
  });
  const minReviews = organization.data?.settings.reviewSummaryMinReviews;

  const path = { params: { path: { id: productId } } };
  const suppress = useMutation({
    mutationFn: (suppressed: boolean) => api.PATCH('/products/{id}/review-summary', { ...path, body: { suppressed } }),
    onSuccess: (summary) => queryClient.setQueryData(key, summary),
  });
  const regenerate = useMutation({
    mutationFn: () => api.POST('/products/{id}/review-summary/regenerate', { ...path, body: {} }),
    onSuccess: ({ queued }) => {
      if (queued) {
        setWaiting({ since: query.data?.generatedAt ?? null, timedOut: false });
        void queryClient.invalidateQueries({ queryKey: key });
      }
    },
  });
  const accept = useMutation({
    mutationFn: () => api.POST('/products/{id}/review-summary/accept', { ...path, body: {} }),
    onSuccess: (summary) => queryClient.setQueryData(key, summary),
  });
  const revert = async () => {
    const summary = await api.POST('/products/{id}/review-summary/revert', { ...path, body: {} });
    queryClient.setQueryData(key, summary);
  };

  if (query.isPending)
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading the summary" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;
  const summary = query.data;
  const regenerating = waiting !== null && !waiting.timedOut && (summary?.generatedAt ?? null) === waiting.since;

  const regenerateButton = canWrite && (
    <Button
      size="xs"
      variant="default"
      loading={regenerate.isPending}
      disabled={regenerating}
      onClick={() => regenerate.mutate()}
    >
      {summary ? 'Regenerate' : 'Generate now'}
    </Button>
  );
  const regenerateOutcome = (
    <>
      {regenerate.isError && <ApiErrorAlert error={regenerate.error} title="Not regenerated" />}
      {regenerate.data?.queued === false && (
        <Alert color="gray" title="Nothing queued" role="status">
          A generation is already queued, or the product has too few published, unflagged reviews
          {minReviews ? ` (a first summary needs ${minReviews})` : ''}.
        </Alert>
      )}
      {regenerating && (
        <Alert color="indigo" title="Regenerating" role="status">
          <Group gap="xs">
            <Loader size="xs" aria-hidden />
            <Text size="sm">A new summary is being written; it goes live as soon as it is ready.</Text>
          </Group>
        </Alert>
      )}
      {waiting && !regenerating && regenerate.data?.queued && (
        <Text size="sm" role="status">
          {summary?.generatedAt !== waiting.since
            ? 'The new summary is live. The one it replaced is kept below until you accept or revert.'
            : 'The new summary is not written yet; reload the page later to see it.'}
        </Text>
      )}
    </>
  );

  if (summary === null) {
    return (
      <Stack>
        <Text c="dimmed" py="md" ta="center">
          No summary yet. A product gets one once it has {minReviews ? formatInteger(minReviews) : 'enough'} published,
          unflagged reviews.
        </Text>
        {regenerateButton && <Group justify="center">{regenerateButton}</Group>}
        {regenerateOutcome}
      </Stack>
    );
  }

  const hidden = summary.suppressedAt !== null;
  return (
    <Stack>
      <Card withBorder padding="md">
        <Stack gap="sm">
          <Group justify="space-between" align="center" gap="xs">
            <Title order={2} size="h4">
              Current summary
            </Title>
            {hidden ? (
              <StatusBadge color="gray">Hidden from the storefront</StatusBadge>
            ) : (
              <StatusBadge color="green">Shown on the storefront</StatusBadge>
            )}
          </Group>
          <SummaryText version={summary} />
          {hidden && (
            <Text size="sm" c="dimmed">
              Hidden since {formatDateTime(summary.suppressedAt)}; automatic refreshes leave it alone.
            </Text>
          )}
          {canWrite && (
            <Group gap="xs">
              <Button
                size="xs"
                variant={hidden ? 'filled' : 'light'}
                color={hidden ? undefined : 'red'}
                loading={suppress.isPending}
                onClick={() => suppress.mutate(!hidden)}
              >
                {hidden ? 'Show on the storefront' : 'Hide from the storefront'}
              </Button>
              {regenerateButton}
            </Group>
          )}
          {suppress.isError && <ApiErrorAlert error={suppress.error} />}
          {regenerateOutcome}
        </Stack>
      </Card>

      {summary.previous && (
        <Card withBorder padding="md" bg="var(--mantine-color-default-hover)">
          <Stack gap="sm">
            <Title order={2} size="h4">
              Previous summary
            </Title>
            <Text size="sm" c="dimmed">
              The latest generation replaced this one. Keep the current summary, or bring this one back.
            </Text>
            <SummaryText version={summary.previous} />
            {canWrite && (
              <Group gap="xs">
                <Button size="xs" loading={accept.isPending} onClick={() => accept.mutate()}>
                  Keep the current summary
                </Button>
                <ConfirmButton
                  title="Revert to the previous summary?"
                  message="The previous summary becomes the current one again and the newer one is discarded."
                  confirmLabel="Revert"
                  danger={false}
                  buttonProps={{ variant: 'default', size: 'xs' }}
                  onConfirm={revert}
                >
                  Revert to this one
                </ConfirmButton>
              </Group>
            )}
            {accept.isError && <ApiErrorAlert error={accept.error} />}
          </Stack>
        </Card>
      )}
    </Stack>
  );
}

function SummaryText({ version }: { version: Summary | SummaryVersion }) {
  return (
    <Stack gap="xs">
      <Prose>{version.summary}</Prose>
      {version.themes.length > 0 && (
        <Group gap={6} aria-label="Themes" role="list">
          {version.themes.map((theme) => (
            <Badge
              key={theme.label}
              role="listitem"
              color={SENTIMENT_COLOR[theme.sentiment]}
              variant="dot"
              tt="none"
              title={`${theme.reviewCount} reviews mention it; ${theme.sentiment}`}
            >
              {theme.label} · {theme.sentiment} · {formatInteger(theme.reviewCount)}
            </Badge>
          ))}
        </Group>
      )}
      <Text size="xs" c="dimmed">
        Read {formatInteger(version.reviewCount)} review{version.reviewCount === 1 ? '' : 's'}, the newest from{' '}
        {formatDateTime(version.newestReviewAt)} · generated {formatDateTime(version.generatedAt)} by {version.modelId}{' '}
        (version {version.promptVersion}) · language {version.language}
      </Text>
    </Stack>
  );
}
