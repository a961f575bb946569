import { authOf } from '../../../http/auth.js';
import { checkCreateBody } from '../../../resource-kit/body.js';
import type { PatronApp, PlatformServices } from '../../../core/types.js';
import { listQuerySchema } from '../../../lists/query.js';
import { listEnvelope } from '../../../records/envelope.js';
import { IdParams } from '../../../records/common.js';
import { programList } from './list.js';
import { ProgramBody, ProgramCreateBody, PROGRAM_REQUIRED } from './schemas.js';
import { LoyaltyProgramService } from './service.js';
import { PROGRAM } from '../../../resource-kit/cascade-parents.js';
import { LoyaltyProgram } from '../../../records/loyalty/program.js';

const tags = ['loyalty-programs'];

export function programRoutes(app: PatronApp, { db, cascades }: PlatformServices): void {
  const programs = new LoyaltyProgramService(db, cascades.of(PROGRAM));
  const read = { permission: 'loyalty:read', cost: 1 };
  const write = { permission: 'loyalty:write', cost: 1 };

  app.get(
    '/loyalty-programs',
    {
      config: read,
      schema: {
        operationId: 'listLoyaltyPrograms',
        summary: 'List loyalty programs, newest first by default',
        tags,
        querystring: listQuerySchema(programList),
        response: { 200: listEnvelope(LoyaltyProgram) },
      },
    },
    async (request) => programs.list(authOf(request).organizationId, request.query),
  );

  app.post(
    '/loyalty-programs',
    {
      config: { ...write, checkBody: checkCreateBody(PROGRAM_REQUIRED, 'loyalty program') },
      schema: {
        operationId: 'createLoyaltyProgram',
        summary:
          'Create a loyalty program (name required; points never expire, rewards never expire and tiers are lifetime unless given); triggers loyaltyProgram.created',
        tags,
        body: ProgramCreateBody,
        response: { 201: LoyaltyProgram },
      },
    },
    async (request, reply) => reply.code(201).send(await programs.create(authOf(request).organizationId, request.body)),
  );

  app.get(
    '/loyalty-programs/:id',
    {
      config: read,
      schema: {
        operationId: 'getLoyaltyProgram',
        summary: 'One loyalty program',
        tags,
        params: IdParams,
        response: { 200: LoyaltyProgram },
      },
    },
    async (request) => programs.get(authOf(request).organizationId, request.params.id),
  );

  app.patch(
    '/loyalty-programs/:id',
    {
      config: write,
      schema: {
        operationId: 'updateLoyaltyProgram',
        summary: 'Change a loyalty program; a new tierWindow reschedules tier reviews; triggers loyaltyProgram.updated',
        tags,
        params: IdParams,
        body: ProgramBody,
        response: { 200: LoyaltyProgram },
      },
    },
    async (request) => programs.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/loyalty-programs/:id',
    {
      config: { ...write, refusals: { 409: "the program has members, or is the organization's last one" } },
      schema: {
        operationId: 'deleteLoyaltyProgram',
        summary:
          'Delete a loyalty program with its tiers and rules (409 while it has members, or when it is the only one); triggers loyaltyProgram.deleted',
        tags,
        params: IdParams,
        response: { 200: LoyaltyProgram },
      },
    },
    async (request) => programs.delete(authOf(request).organizationId, request.params.id),
  );
}
