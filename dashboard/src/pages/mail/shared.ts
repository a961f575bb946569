import type { Schemas } from '@patron/client/browser';

export type EmailTemplate = Schemas['EmailTemplate'];
export type MailMessage = Schemas['MailMessage'];

export const TEMPLATES_KEY = ['email-templates'] as const;
export const MAIL_LOG_KEY = ['mail-log'] as const;

export const MAIL_KINDS: Record<EmailTemplate['kind'], string> = {
  surveyRequest: 'Survey request',
  rewardIssued: 'Reward issued',
  rewardExpiringSoon: 'Reward expiring soon',
  pointsExpiringSoon: 'Points expiring soon',
  reviewReplied: 'Review replied',
};

/** The mail log's kinds: the templates' and a dashboard user's "forgot password" link, which has no template. */
export const MAIL_LOG_KINDS: Record<MailMessage['kind'], string> = {
  ...MAIL_KINDS,
  passwordReset: 'Password reset',
};
