import Type from 'typebox';
import { authOf } from '../../http/auth.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { includeSchema, listQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { IdParams } from '../../records/common.js';
import { Tag, TagRecord } from '../../records/tag.js';
import { TAG_KINDS, TagPatch, type TagKindInfo } from './schemas.js';
import { TagService } from './service.js';

const tags = ['tags'];

/** The same four routes for each tag kind: /product-tags, /order-tags, /customer-tags. */
export function tagRoutes(app: PatronApp, { db }: PlatformServices): void {
  for (const info of TAG_KINDS) kindRoutes(app, new TagService(db, info.kind), info);
}

function kindRoutes(app: PatronApp, service: TagService, info: TagKindInfo): void {
  const read = { permission: `${info.permission}:read`, cost: 1 };
  const write = { permission: `${info.permission}:write`, cost: 1 };
  const getQuery = Type.Object(
    { include: Type.Optional(includeSchema(service.definition)) },
    { additionalProperties: false },
  );
  const { path, name, kind, records } = info;

  app.get(
    path,
    {
      config: read,
      schema: {
        operationId: `list${name}s`,
        summary: `List ${kind} tags, newest first by default`,
        tags,
        querystring: listQuerySchema(service.definition),
        response: { 200: listEnvelope(TagRecord) },
      },
    },
    async (request) => service.list(authOf(request).organizationId, request.query),
  );

  app.get(
    `${path}/:id`,
    {
      config: read,
      schema: {
        operationId: `get${name}`,
        summary: `One ${kind} tag`,
        tags,
        params: IdParams,
        querystring: getQuery,
        response: { 200: TagRecord },
      },
    },
    async (request) => service.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.patch(
    `${path}/:id`,
    {
      config: { ...write, refusals: { 409: 'another tag of this kind already has the name' } },
      schema: {
        operationId: `rename${name}`,
        summary: `Rename a ${kind} tag on every one of its ${records}; a name another ${kind} tag has is 409`,
        tags,
        params: IdParams,
        body: TagPatch,
        response: { 200: Tag },
      },
    },
    async (request) => service.rename(authOf(request).organizationId, request.params.id, request.body.name),
  );

  app.delete(
    `${path}/:id`,
    {
      config: write,
      schema: {
        operationId: `delete${name}`,
        summary: `Delete a ${kind} tag and remove it from every one of its ${records}`,
        tags,
        params: IdParams,
        response: { 200: Tag },
      },
    },
    async (request) => service.delete(authOf(request).organizationId, request.params.id),
  );
}
