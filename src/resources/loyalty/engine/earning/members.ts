import type { Transaction } from 'kysely';
import type { DB } from '../../../../db/schema.js';
import { conflict, unprocessable, validationError } from '../../../../core/errors.js';
import { resolveCustomers } from '../../../../resource-kit/references.js';
import { lockMembership, lockMembershipOf } from '../locks.js';
import { resolveProgram } from '../programs.js';
import type { MembershipRow } from '../../../../records/loyalty/membership.js';

export interface MemberReference {
  loyaltyMembershipId?: string | undefined;
  customer?: string | undefined;
  loyaltyProgramId?: string | undefined;
}

/**
 * The member a request names (loyaltyMembershipId, or customer id/email plus the program), locked for update: the
 * earning that follows changes the row, and locking it first serializes two earnings of one member. A reference to
 * no member of this organization is 422; a member who left is 409.
 */
export async function lockNamedMember(
  trx: Transaction<DB>,
  organizationId: string,
  fields: MemberReference,
  path: string,
): Promise<MembershipRow> {
  if ((fields.loyaltyMembershipId === undefined) === (fields.customer === undefined)) {
    const both = fields.loyaltyMembershipId !== undefined;
    throw validationError(
      `Invalid request: send either ${path}.loyaltyMembershipId or ${path}.customer${both ? ', not both' : ''}.`,
      [
        {
          path: `${path}.${both ? 'customer' : 'loyaltyMembershipId'}`,
          message: both ? 'must not be sent with loyaltyMembershipId' : 'is required (or customer)',
        },
      ],
    );
  }
  if (fields.loyaltyMembershipId !== undefined && fields.loyaltyProgramId !== undefined) {
    throw validationError(
      `Invalid request: ${path}.loyaltyProgramId goes with customer; the membership already names its program.`,
      [{ path: `${path}.loyaltyProgramId`, message: 'must not be sent with loyaltyMembershipId' }],
    );
  }
  let member: MembershipRow | undefined;
  if (fields.loyaltyMembershipId !== undefined) {
    member = await lockMembership(trx, organizationId, fields.loyaltyMembershipId.toLowerCase());
    if (!member) {
      throw unprocessable(`${path}.loyaltyMembershipId names no loyalty membership of this organization.`, [
        { path: `${path}.loyaltyMembershipId`, message: 'no such membership' },
      ]);
    }
  } else {
    const program = await resolveProgram(
      trx,
      organizationId,
      fields.loyaltyProgramId?.toLowerCase(),
      `${path}.loyaltyProgramId`,
    );
    const customerId = (await resolveCustomers(trx, organizationId, [fields.customer!])).get(fields.customer!);
    if (!customerId) {
      throw unprocessable(`${path}.customer names no customer of this organization.`, [
        { path: `${path}.customer`, message: 'no such customer' },
      ]);
    }
    member = await lockMembershipOf(trx, organizationId, program.id, customerId);
    if (!member) {
      throw unprocessable(
        `${path}.customer is not a member of the loyalty program; join them first (POST /v1/loyalty-memberships).`,
        [{ path: `${path}.customer`, message: 'not a member of the program' }],
      );
    }
  }
  if (member.left_at) throw conflict('The member has left the loyalty program; they earn nothing until they rejoin.');
  return member;
}
