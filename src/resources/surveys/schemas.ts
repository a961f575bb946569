import Type, { type Static } from 'typebox';
import { describedPattern } from '../../core/pattern-message.js';
import { MetadataInput, Uuid } from '../../records/common.js';
import { SurveyQuestionKindValue, SurveyTriggerValue } from '../../records/survey.js';
import { requiredOnCreate } from '../../resource-kit/body.js';

/** A flow asks at most 20 questions; a choice question offers 2..20 choices (docs/api.md#surveys). */
export const MAX_QUESTIONS = 20;
export const MAX_CHOICES = 20;

const QuestionInput = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      ...describedPattern('^[A-Za-z0-9_-]+$', 'must be letters, digits, _ or - only, e.g. q1 or delivery-speed'),
      description: 'Unique within the flow: letters, digits, _ and -, 1..64 characters.',
    }),
    text: Type.String({ minLength: 1, maxLength: 1_000 }),
    kind: SurveyQuestionKindValue,
    choices: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        minItems: 2,
        maxItems: MAX_CHOICES,
        description: 'Required for a choice question (2..20 distinct choices); refused for the other kinds.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type QuestionInput = Static<typeof QuestionInput>;

const patchFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: '1..200 characters.' })),
  trigger: Type.Optional(SurveyTriggerValue),
  delayDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: '0..365; default 7.' })),
  emailTemplateId: Type.Optional(
    Type.String({ format: 'uuid', description: 'A surveyRequest email template of the organization.' }),
  ),
  questions: Type.Optional(
    Type.Array(QuestionInput, { minItems: 1, maxItems: MAX_QUESTIONS, description: '1..20 questions.' }),
  ),
  isActive: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  metadata: Type.Optional(MetadataInput),
};

export const SurveyFlowInput = Type.Object(patchFields, { additionalProperties: false });
export type SurveyFlowInput = Static<typeof SurveyFlowInput>;

/** POST and PATCH bodies: the fields inside `data` or at the top level (docs/api.md#wrapped-and-unwrapped-bodies). */
const SurveyFlowBodyFields = Type.Object(
  { data: Type.Optional(SurveyFlowInput), ...patchFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type SurveyFlowBody = Static<typeof SurveyFlowBodyFields>;
export const SurveyFlowPatchBody = SurveyFlowBodyFields;
export const SURVEY_FLOW_REQUIRED = ['name', 'trigger', 'emailTemplateId', 'questions'] as const;
export const SurveyFlowCreateBody = requiredOnCreate(SurveyFlowBodyFields, SURVEY_FLOW_REQUIRED);

const AnswerInput = Type.Object(
  {
    questionId: Type.String({ minLength: 1, maxLength: 64 }),
    step: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'For a rating question: 1..5.' })),
    choice: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'For a choice question.' })),
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: 5_000, description: 'For a text question, 1..5,000 characters.' }),
    ),
  },
  { additionalProperties: false },
);
export type AnswerInput = Static<typeof AnswerInput>;

/** POST /surveys/{id}/answers: one answer per question answered (docs/api.md#answering-a-survey). */
export const SurveyAnswersBody = Type.Object(
  {
    answers: Type.Array(AnswerInput, {
      minItems: 1,
      maxItems: MAX_QUESTIONS,
      description: "The customer's answers, at most one per question; questions left out stay unanswered.",
    }),
  },
  { additionalProperties: false },
);
export type SurveyAnswersBody = Static<typeof SurveyAnswersBody>;

export const SurveyParams = Type.Object({ id: Uuid }, { additionalProperties: false });
