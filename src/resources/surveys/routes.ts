import { authOf } from '../../http/auth.js';
import { checkCreateBody } from '../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { includeSchema, listQuerySchema } from '../../lists/query.js';
import Type from 'typebox';
import { IdParams } from '../../records/common.js';
import { listEnvelope } from '../../records/envelope.js';
import { Survey, SurveyFlow } from '../../records/survey.js';
import { surveyFlowList, surveyList } from './list.js';
import { SURVEY_FLOW_REQUIRED, SurveyAnswersBody, SurveyFlowCreateBody, SurveyFlowPatchBody } from './schemas.js';
import { SurveyFlowService, SurveyService } from './service.js';

const tags = ['surveys'];
const NO_SURVEY_TEMPLATE = 'emailTemplateId names no surveyRequest email template of this organization';

export function surveyRoutes(app: PatronApp, { db }: PlatformServices): void {
  const flows = new SurveyFlowService(db);
  const surveys = new SurveyService(db);
  const read = { permission: 'surveys:read', cost: 1 };
  const write = { permission: 'surveys:write', cost: 1 };

  app.get(
    '/survey-flows',
    {
      config: read,
      schema: {
        operationId: 'listSurveyFlows',
        summary: 'List survey flows, newest first by default',
        tags,
        querystring: listQuerySchema(surveyFlowList),
        response: { 200: listEnvelope(SurveyFlow) },
      },
    },
    async (request) => flows.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/survey-flows',
    {
      config: {
        ...write,
        checkBody: checkCreateBody(SURVEY_FLOW_REQUIRED, 'survey flow'),
        refusals: { 422: NO_SURVEY_TEMPLATE },
      },
      schema: {
        operationId: 'createSurveyFlow',
        summary:
          'Create a survey flow (name, trigger, emailTemplateId and questions required): each order that gains the trigger date is surveyed delayDays later; triggers surveyFlow.created',
        tags,
        body: SurveyFlowCreateBody,
        response: { 201: SurveyFlow },
      },
    },
    async (request, reply) => {
      const flow = await flows.create(authOf(request).organizationId, request.body);
      return reply.code(201).send(flow);
    },
  );

  app.get(
    '/survey-flows/:id',
    {
      config: read,
      schema: {
        operationId: 'getSurveyFlow',
        summary: 'One survey flow',
        tags,
        params: IdParams,
        response: { 200: SurveyFlow },
      },
    },
    async (request) => flows.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/survey-flows/:id',
    {
      config: { ...write, refusals: { 422: NO_SURVEY_TEMPLATE } },
      schema: {
        operationId: 'updateSurveyFlow',
        summary:
          "Change a survey flow's fields (surveys already scheduled keep their time and request); triggers surveyFlow.updated",
        tags,
        params: IdParams,
        body: SurveyFlowPatchBody,
        response: { 200: SurveyFlow },
      },
    },
    async (request) => flows.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/survey-flows/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteSurveyFlow',
        summary:
          'Delete a survey flow with its surveys (requests not yet sent are withdrawn); triggers survey.deleted for each, then surveyFlow.deleted',
        tags,
        params: IdParams,
        response: { 200: SurveyFlow },
      },
    },
    async (request) => flows.delete(authOf(request).organizationId, request.params.id),
  );

  app.get(
    '/surveys',
    {
      config: read,
      schema: {
        operationId: 'listSurveys',
        summary:
          'List surveys, newest first by default; filter on status, surveyFlowId, customerId, orderId, scheduledFor, sentAt, answeredAt; include customer, order',
        tags,
        querystring: listQuerySchema(surveyList),
        response: { 200: listEnvelope(Survey) },
      },
    },
    async (request) => surveys.list(authOf(request).organizationId, request.query),
  );

  app.get(
    '/surveys/:id',
    {
      config: read,
      schema: {
        operationId: 'getSurvey',
        summary: 'One survey with its answers; include customer, order',
        tags,
        params: IdParams,
        querystring: Type.Object(
          { include: Type.Optional(includeSchema(surveyList)) },
          { additionalProperties: false },
        ),
        response: { 200: Survey },
      },
    },
    async (request) => surveys.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.delete(
    '/surveys/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteSurvey',
        summary: 'Delete a survey (its request is withdrawn if not yet sent); triggers survey.deleted',
        tags,
        params: IdParams,
        response: { 200: Survey },
      },
    },
    async (request) => surveys.delete(authOf(request).organizationId, request.params.id),
  );

  app.post(
    '/surveys/:id/answers',
    {
      config: { ...write, refusals: { 409: 'the survey was already answered' } },
      schema: {
        operationId: 'answerSurvey',
        summary:
          "Record the customer's answers (once; each names a question of the survey's flow and carries a step, choice or text by its kind)",
        tags,
        params: IdParams,
        body: SurveyAnswersBody,
        response: { 200: Survey },
      },
    },
    async (request) => surveys.answer(authOf(request).organizationId, request.params.id, request.body),
  );
}
