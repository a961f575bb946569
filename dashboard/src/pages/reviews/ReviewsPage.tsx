import { lazy, Suspense } from 'react';
import { Center, Loader, Tabs, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useCan } from '../../api/session';
import { PageHeader } from '../../components';
import { QuestionsTab } from './QuestionsTab';
import { ReviewsTab } from './ReviewsTab';
import { SummariesTab } from './SummariesTab';

// Surveys bring a form of their own (numbers, tags, a modal): loaded when the tab is first opened.
const SurveysTab = lazy(() => import('./SurveysTab').then((module) => ({ default: module.SurveysTab })));

const TABS = [
  { value: 'reviews', label: 'Reviews' },
  { value: 'summaries', label: 'Summaries' },
  { value: 'questions', label: 'Questions' },
  { value: 'surveys', label: 'Surveys' },
] as const;

/**
 * Reviews to publish or flag, each product's review summary, shoppers' questions to moderate and answer, and the
 * survey flows with the surveys they mailed. The tab,
 * the filters and the open record are in the URL (?tab=, ?status=…, ?id=), so a view can be reloaded and linked to.
 */
export default function ReviewsPage() {
  const [params, setParams] = useSearchParams();
  const canWrite = useCan('reviews:write');
  const asked = params.get('tab');
  const tab = TABS.find((candidate) => candidate.value === asked)?.value ?? 'reviews';
  return (
    <>
      <PageHeader
        title="Reviews"
        description={
          canWrite ? (
            'Moderate reviews and questions, answer shoppers, look after the summaries of what reviewers say, and follow the surveys customers are mailed.'
          ) : (
            <Text span size="sm">
              You can read reviews, summaries, questions and surveys; changing them needs the reviews:write (surveys:
              surveys:write) permission.
            </Text>
          )
        }
      />
      <Tabs
        value={tab}
        // A tab starts with its own filters: the others' would not apply.
        onChange={(value) => value && setParams({ tab: value }, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md" aria-label="Views">
          {TABS.map((candidate) => (
            <Tabs.Tab key={candidate.value} value={candidate.value}>
              {candidate.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="reviews">
          <ReviewsTab />
        </Tabs.Panel>
        <Tabs.Panel value="summaries">
          <SummariesTab />
        </Tabs.Panel>
        <Tabs.Panel value="questions">
          <QuestionsTab />
        </Tabs.Panel>
        <Tabs.Panel value="surveys">
          <Suspense
            fallback={
              <Center py="xl">
                <Loader size="sm" aria-label="Loading surveys" />
              </Center>
            }
          >
            <SurveysTab />
          </Suspense>
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
