import Type, { type Static } from 'typebox';
import { requiredOnCreate } from '../../resource-kit/body.js';
import { EmailTemplateKindValue } from '../../records/email-template.js';
import { MAX_PART_BYTES, MAX_SUBJECT_LENGTH } from './liquid.js';

const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'What the template is called, 1..200 characters.',
});
const Subject = Type.String({
  minLength: 1,
  maxLength: MAX_SUBJECT_LENGTH,
  description: 'Liquid source of the subject line, 1..998 characters.',
});
const Html = Type.String({
  minLength: 1,
  maxLength: MAX_PART_BYTES,
  description: 'Liquid source of the HTML part, at most 256 KiB; every output is HTML-escaped.',
});
const Text = Type.String({
  maxLength: MAX_PART_BYTES,
  description: 'Liquid source of the plain-text part, at most 256 KiB; empty (the default) for none.',
});
const Locale = Type.String({
  minLength: 1,
  maxLength: 35,
  description: 'A BCP 47 language tag (en, de-AT), stored in its canonical form; default en.',
});
const IsActive = Type.Boolean({
  description: 'Whether mail is sent with it (default true); one active template per kind and locale.',
});

const patchFields = {
  name: Type.Optional(Name),
  subject: Type.Optional(Subject),
  html: Type.Optional(Html),
  text: Type.Optional(Text),
  locale: Type.Optional(Locale),
  isActive: Type.Optional(IsActive),
};
const createFields = { kind: Type.Optional(EmailTemplateKindValue), ...patchFields };

/** The fields a PATCH sets: everything but the kind, which a template keeps for life (its variables depend on it). */
export const EmailTemplatePatchInput = Type.Object(patchFields, { additionalProperties: false });
export type EmailTemplatePatchInput = Static<typeof EmailTemplatePatchInput>;
export const EmailTemplateCreateInput = Type.Object(createFields, { additionalProperties: false });
export type EmailTemplateCreateInput = Static<typeof EmailTemplateCreateInput>;

/**
 * POST and PATCH bodies: the fields inside `data` (the reference form) or at the top level (the unwrapped form);
 * both at once is 400 (docs/api.md#wrapped-and-unwrapped-bodies).
 */
export const EmailTemplatePatchBody = Type.Object(
  { data: Type.Optional(EmailTemplatePatchInput), ...patchFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type EmailTemplatePatchBody = Static<typeof EmailTemplatePatchBody>;

const EmailTemplateCreateFields = Type.Object(
  { data: Type.Optional(EmailTemplateCreateInput), ...createFields },
  { additionalProperties: false, description: 'Send the fields inside data, or at the top level, not both.' },
);
export type EmailTemplateCreateBody = Static<typeof EmailTemplateCreateFields>;
/** What a new template must name (text defaults to empty, locale to en, isActive to true). */
export const EMAIL_TEMPLATE_REQUIRED = ['name', 'kind', 'subject', 'html'] as const;
export const EmailTemplateCreateBody = requiredOnCreate(EmailTemplateCreateFields, EMAIL_TEMPLATE_REQUIRED);

/** POST /email-templates/{id}/preview: optional variables laid over the sample data. */
export const EmailTemplatePreviewBody = Type.Object(
  {
    variables: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([
          Type.String({ maxLength: 10_000 }),
          Type.Number(),
          Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Number()])),
        ]),
        {
          description:
            "Values to render with instead of the samples: a whole variable (daysLeft: 3) or some fields of an object variable (customer: { firstName: 'Bo' }); each must be one of the kind's variables.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type EmailTemplatePreviewBody = Static<typeof EmailTemplatePreviewBody>;

export const RenderedEmail = Type.Object(
  {
    subject: Type.String({ description: 'The rendered subject, on one line.' }),
    html: Type.String({ description: 'The rendered HTML part.' }),
    text: Type.String({ description: 'The rendered plain-text part (empty when the template has none).' }),
  },
  { $id: 'RenderedEmail', additionalProperties: false },
);
