import Type, { type Static } from 'typebox';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../auth/passwords.js';
import { PASSWORD_MIN_SCORE } from '../../auth/password-strength.js';
import { Uuid } from '../../records/common.js';
import { User, UserLocaleSchema, UserRoleSchema } from '../../records/user.js';
import { ApiKey } from '../../records/api-key.js';

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
const NewPassword = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  description:
    `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, and hard to guess: a zxcvbn strength of ` +
    `${PASSWORD_MIN_SCORE} of 4 or more (common passwords, repeats, sequences and keyboard rows are refused).`,
});

/** Sign in with an email and password, or with a one-time link's token (docs/api.md#dashboard-sessions). */
export const SignInBody = Type.Object(
  {
    email: Type.Optional(Email),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH })),
    signInToken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "A one-time sign-in link's token: what follows #token= in the link.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Either email and password, or signInToken alone.',
  },
);
export type SignInBody = Static<typeof SignInBody>;

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: PASSWORD_MAX_LENGTH,
        description: 'Required when the user already has a password.',
      }),
    ),
    newPassword: NewPassword,
  },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

/** "Forgot password": mail a one-time sign-in link to this email if a user has it (docs/api.md#forgotten-passwords). */
export const PasswordResetBody = Type.Object({ email: Email }, { additionalProperties: false });
export type PasswordResetBody = Static<typeof PasswordResetBody>;

export const PasswordResetAccepted = Type.Object(
  {
    message: Type.String({
      description: 'The same whether the email has an account or not, so the answer tells nobody which emails exist.',
    }),
  },
  { additionalProperties: false },
);
export type PasswordResetAccepted = Static<typeof PasswordResetAccepted>;

const UserName = Type.String({ minLength: 1, maxLength: 200, description: 'Display name (trimmed).' });

export const CreateUserBody = Type.Object(
  { email: Email, name: Type.Optional(UserName), role: UserRoleSchema },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(Type.Union([UserName, Type.Null()], { description: 'Display name; null removes it.' })),
    role: Type.Optional(UserRoleSchema),
  },
  { additionalProperties: false },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A label to recognise the key by.' })),
    permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 100,
      description: '"all", or permissions of the catalog (the session\'s grantablePermissions).',
    }),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const UpdateSessionBody = Type.Object(
  {
    testMode: Type.Optional(
      Type.Boolean({
        description:
          "true: the session acts on the organization's test data from its next request; false: on live data again.",
      }),
    ),
    locale: Type.Optional(UserLocaleSchema),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      "testMode is the session's; locale is the signed-in user's own (stored with the user, so every session of theirs " +
      'shows it).',
  },
);
export type UpdateSessionBody = Static<typeof UpdateSessionBody>;

export const Session = Type.Object(
  {
    user: User,
    organization: Type.Object({ id: Uuid, name: Type.String() }, { additionalProperties: false }),
    testMode: Type.Boolean({
      description:
        "Whether the session acts on the organization's test data (its test twin) rather than live data: every " +
        'resource and setting it reads or writes is then test data; users stay those of the organization.',
    }),
    permissions: Type.Array(Type.String(), {
      description: "What the user's role grants: permissions of the catalog, plus keys:manage and users:manage.",
    }),
    grantablePermissions: Type.Array(Type.String(), { description: 'The permissions a new API key may be given.' }),
    passwordResetUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'Until when this session may set a new password without the current one (PUT /v1/session/password): an hour ' +
        'after signing in with a one-time link, until a password is set. null otherwise.',
    }),
    csrfToken: Type.String({ description: 'Send it as X-CSRF-Token with every request but GET, HEAD and OPTIONS.' }),
    expiresAt: Type.String({
      format: 'date-time',
      description:
        'When the session ends unless it is used again (12 h after its last use, 7 days after sign-in at most).',
    }),
  },
  { $id: 'Session', additionalProperties: false },
);
export type Session = Static<typeof Session>;

export const UserPage = Type.Object(
  { data: Type.Array(User), nextCursor: Type.Null({ description: 'Always null: every user is on one page.' }) },
  { additionalProperties: false },
);

export const CreatedUser = Type.Object(
  {
    user: User,
    signInLink: Type.String({
      description: 'A one-time sign-in link, valid 24 hours: shown only in this answer.',
    }),
  },
  { additionalProperties: false },
);

export const ApiKeyPage = Type.Object(
  { data: Type.Array(ApiKey), nextCursor: Type.Null({ description: 'Always null: every key is on one page.' }) },
  { additionalProperties: false },
);
