import type { Kysely } from 'kysely';
import type { DB, SurveyAnswer, SurveyQuestion } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { conflict, notFound, unprocessable, validationError, type ErrorDetail } from '../../core/errors.js';
import { getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams } from '../../lists/query.js';
import { requireFields, unwrapData } from '../../resource-kit/body.js';
import { uuidv7 } from '../../util/ids.js';
import type { Executor } from '../../db/executor.js';
import {
  surveyDeletedEvent,
  surveyFlowEvent,
  toSurvey,
  toSurveyFlow,
  type Survey,
  type SurveyFields,
  type SurveyFlow,
} from '../../records/survey.js';
import { withdrawQueuedMail } from '../mail/index.js';
import { surveyFlowList, surveyList } from './list.js';
import {
  deleteSurveyFlowRow,
  deleteSurveysWhere,
  findSurvey,
  findSurveyFlow,
  insertSurveyFlow,
  lockSurveyFlow,
  lockSurveyWithQuestions,
  recordAnswers,
  templateKind,
  updateSurveyFlow,
} from './queries.js';
import {
  SURVEY_FLOW_REQUIRED,
  type AnswerInput,
  type QuestionInput,
  type SurveyAnswersBody,
  type SurveyFlowBody,
  type SurveyFlowInput,
} from './schemas.js';

const DEFAULT_DELAY_DAYS = 7;

/** 400 for questions the schema cannot judge alone: a repeated id, choices on the wrong kind or repeated. */
function checkQuestions(questions: readonly QuestionInput[], path: string): SurveyQuestion[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  questions.forEach((question, index) => {
    const at = `${path}.questions[${index}]`;
    if (seen.has(question.id)) details.push({ path: `${at}.id`, message: `repeats the question id "${question.id}"` });
    seen.add(question.id);
    if (question.kind === 'choice') {
      if (!question.choices) details.push({ path: `${at}.choices`, message: 'is required for a choice question' });
      else if (new Set(question.choices).size !== question.choices.length)
        details.push({ path: `${at}.choices`, message: 'must not repeat a choice' });
    } else if (question.choices !== undefined) {
      details.push({ path: `${at}.choices`, message: `is only for choice questions, not ${question.kind}` });
    }
  });
  if (details.length) throw validationError(`Invalid request: ${details[0]!.path} ${details[0]!.message}.`, details);
  return questions.map((question) => ({
    id: question.id,
    text: question.text,
    kind: question.kind,
    ...(question.choices ? { choices: question.choices } : {}),
  }));
}

/** 422 unless the template is one of the organization's surveyRequest templates. */
async function checkTemplate(db: Executor, organizationId: string, id: string, path: string): Promise<void> {
  const kind = await templateKind(db, organizationId, id);
  if (!kind) {
    throw unprocessable(`${path} names an email template that does not exist in this organization.`, [
      { path, message: 'names no email template of this organization' },
    ]);
  }
  if (kind !== 'surveyRequest') {
    throw unprocessable(`${path} names a ${kind} template; a survey flow needs a surveyRequest template.`, [
      { path, message: `names a ${kind} template, not a surveyRequest one` },
    ]);
  }
}

/**
 * The answers checked against the survey's questions (docs/api.md#answering-a-survey): each names a question once and
 * carries the one field its kind takes (a step for rating, one of the choices for choice, text for text).
 */
function checkAnswers(questions: readonly SurveyQuestion[], answers: readonly AnswerInput[]): SurveyAnswer[] {
  const byId = new Map(questions.map((question) => [question.id, question]));
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  const field = { rating: 'step', choice: 'choice', text: 'text' } as const;
  answers.forEach((answer, index) => {
    const at = `body.answers[${index}]`;
    const question = byId.get(answer.questionId);
    if (!question) {
      details.push({
        path: `${at}.questionId`,
        message: `names no question of this survey (its questions: ${questions.map((each) => each.id).join(', ')})`,
      });
      return;
    }
    if (seen.has(answer.questionId)) {
      details.push({ path: `${at}.questionId`, message: `answers question "${answer.questionId}" a second time` });
      return;
    }
    seen.add(answer.questionId);
    const expected = field[question.kind];
    for (const name of ['step', 'choice', 'text'] as const) {
      if (name !== expected && answer[name] !== undefined)
        details.push({ path: `${at}.${name}`, message: `is not an answer to a ${question.kind} question` });
    }
    if (answer[expected] === undefined) {
      details.push({ path: `${at}.${expected}`, message: `is required to answer a ${question.kind} question` });
    } else if (question.kind === 'choice' && !question.choices?.includes(answer.choice!)) {
      details.push({
        path: `${at}.choice`,
        message: `must be one of the question's choices (${question.choices?.join(', ')})`,
      });
    }
  });
  if (details.length) throw validationError(`Invalid request: ${details[0]!.path} ${details[0]!.message}.`, details);
  return answers.map((answer) => ({
    questionId: answer.questionId,
    ...(answer.step !== undefined ? { step: answer.step } : {}),
    ...(answer.choice !== undefined ? { choice: answer.choice } : {}),
    ...(answer.text !== undefined ? { text: answer.text } : {}),
  }));
}

/**
 * Deletes surveys in the caller's transaction: their requests not yet taken by a sender are withdrawn, and each sends
 * survey.deleted (docs/api.md#surveys). Answers the events for the caller to record with its own.
 */
export async function deleteSurveys(
  trx: Executor,
  organizationId: string,
  by: Parameters<typeof deleteSurveysWhere>[2],
) {
  const rows = await deleteSurveysWhere(trx, organizationId, by);
  await withdrawQueuedMail(
    trx,
    organizationId,
    rows.flatMap((row) => (row.mail_id ? [row.mail_id] : [])),
  );
  return rows.map((row: SurveyFields) => surveyDeletedEvent(organizationId, row));
}

export class SurveyFlowService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, surveyFlowList, organizationId, params, toSurveyFlow);
  }

  async get(organizationId: string, id: string): Promise<SurveyFlow> {
    const row = await findSurveyFlow(this.db, organizationId, id);
    if (!row) throw notFound('The survey flow');
    return toSurveyFlow(row);
  }

  async create(organizationId: string, body: SurveyFlowBody | undefined): Promise<SurveyFlow> {
    const { fields, path } = unwrapData<SurveyFlowInput>(body, 'survey flow');
    requireFields(fields, SURVEY_FLOW_REQUIRED, path);
    const questions = checkQuestions(fields.questions!, path);
    return this.db.transaction().execute(async (trx) => {
      await checkTemplate(trx, organizationId, fields.emailTemplateId!, `${path}.emailTemplateId`);
      const row = await insertSurveyFlow(trx, organizationId, uuidv7(), {
        name: fields.name!,
        trigger: fields.trigger!,
        delayDays: fields.delayDays ?? DEFAULT_DELAY_DAYS,
        emailTemplateId: fields.emailTemplateId!,
        questions,
        isActive: fields.isActive ?? true,
        metadata: fields.metadata ?? {},
      });
      await recordEvents(trx, [surveyFlowEvent(organizationId, 'surveyFlow.created', row)]);
      return toSurveyFlow(row);
    });
  }

  /**
   * Changes apply to the surveys scheduled from now on; those already scheduled keep their time and request, and
   * their answers are checked against the questions as they are now (docs/api.md#surveys).
   */
  async update(organizationId: string, id: string, body: SurveyFlowBody | undefined): Promise<SurveyFlow> {
    const { fields, path } = unwrapData<SurveyFlowInput>(body, 'survey flow');
    const questions = fields.questions && checkQuestions(fields.questions, path);
    return this.db.transaction().execute(async (trx) => {
      const before = await lockSurveyFlow(trx, organizationId, id);
      if (!before) throw notFound('The survey flow');
      if (fields.emailTemplateId !== undefined)
        await checkTemplate(trx, organizationId, fields.emailTemplateId, `${path}.emailTemplateId`);
      const row = await updateSurveyFlow(trx, organizationId, id, { ...fields, questions });
      // A PATCH that changes nothing sends nothing (docs/api.md#writes-that-change-nothing).
      if (!row) return toSurveyFlow(before);
      await recordEvents(trx, [surveyFlowEvent(organizationId, 'surveyFlow.updated', row)]);
      return toSurveyFlow(row);
    });
  }

  /** Deletes the flow with its surveys (survey.deleted each, then surveyFlow.deleted). */
  async delete(organizationId: string, id: string): Promise<SurveyFlow> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockSurveyFlow(trx, organizationId, id))) throw notFound('The survey flow');
      const surveyEvents = await deleteSurveys(trx, organizationId, { flowId: id });
      const row = await deleteSurveyFlowRow(trx, organizationId, id);
      if (!row) throw notFound('The survey flow');
      await recordEvents(trx, [...surveyEvents, surveyFlowEvent(organizationId, 'surveyFlow.deleted', row)]);
      return toSurveyFlow(row);
    });
  }
}

export class SurveyService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, surveyList, organizationId, params, toSurvey);
  }

  async get(organizationId: string, id: string, include?: string): Promise<Survey> {
    return getRecord(this.db, surveyList, organizationId, include, {
      find: () => findSurvey(this.db, organizationId, id),
      toRecord: toSurvey,
      missing: () => notFound('The survey'),
    });
  }

  async delete(organizationId: string, id: string): Promise<Survey> {
    return this.db.transaction().execute(async (trx) => {
      const events = await deleteSurveys(trx, organizationId, { ids: [id] });
      if (events.length === 0) throw notFound('The survey');
      await recordEvents(trx, events);
      return events[0]!.record as Survey;
    });
  }

  /**
   * Records the customer's answers, once (docs/api.md#answering-a-survey). A survey answered before its request went
   * out has that request withdrawn: nobody is asked what they already said.
   */
  async answer(organizationId: string, id: string, body: SurveyAnswersBody): Promise<Survey> {
    return this.db.transaction().execute(async (trx) => {
      const survey = await lockSurveyWithQuestions(trx, organizationId, id);
      if (!survey) throw notFound('The survey');
      if (survey.status === 'answered') {
        throw conflict(`The survey was already answered (at ${survey.answered_at!.toISOString()}); answers are final.`);
      }
      const answers = checkAnswers(survey.questions, body.answers);
      const withdrawn = survey.mail_id ? await withdrawQueuedMail(trx, organizationId, [survey.mail_id]) : [];
      return toSurvey(await recordAnswers(trx, organizationId, id, answers, withdrawn.length > 0));
    });
  }
}
