import type { ResourceModule } from '../../core/types.js';
import { Survey, SurveyFlow } from '../../records/survey.js';
import { surveyRoutes } from './routes.js';
import { surveyCascades } from './cascades.js';

/** Survey flows and surveys (docs/api.md#surveys): a request mailed after an order ships or arrives, and its answers. */
export const surveysResource: ResourceModule = {
  name: 'surveys',
  permissions: ['surveys:read', 'surveys:write'],
  description:
    "Survey flows and surveys: a flow mails a survey request a set number of days after an order ships or is delivered, once per order, and records the customer's answers.",
  routes: surveyRoutes,
  // The record each event carries as data (docs/api.md#fan-out-and-payload), for the document's webhooks.
  events: [
    {
      names: ['surveyFlow.created', 'surveyFlow.updated', 'surveyFlow.deleted'],
      schema: SurveyFlow,
      firesWhen: 'POST, PATCH and DELETE on /survey-flows.',
    },
    {
      names: ['survey.deleted'],
      schema: Survey,
      firesWhen:
        'DELETE /surveys/{id}, and each survey of a flow DELETE /survey-flows/{id} removes or of an order DELETE /orders/{id} removes, whatever its status.',
    },
  ],
  // Deleting an order deletes its surveys.
  cascades: surveyCascades,
};

/** What order writers call in their own transaction (docs/api.md#when-a-survey-is-scheduled). */
export { scheduleSurveys, surveysMayBeDue, type OrderDatesBefore } from './schedule.js';
