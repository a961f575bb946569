import Type from 'typebox';
import { authOf } from '../../http/auth.js';
import { QUICK_FILTER_MISSING, withQuickFilter } from '../quick-filters/index.js';
import type { PatronApp, PlatformServices } from '../../core/types.js';
import { includeSchema, listQuerySchema } from '../../lists/query.js';
import { listEnvelope } from '../../records/envelope.js';
import { Wishlist } from '../../records/wishlist.js';
import { wishlistList } from './list.js';
import {
  WishlistImportBody,
  WishlistImportResult,
  WishlistItemBody,
  WishlistItemParams,
  WishlistParams,
  WishlistPatch,
} from './schemas.js';
import { WishlistService } from './service.js';

const tags = ['wishlists'];

export function wishlistRoutes(app: PatronApp, { db }: PlatformServices): void {
  const wishlists = new WishlistService(db);
  const read = { permission: 'wishlists:read', cost: 1 };
  const write = { permission: 'wishlists:write', cost: 1 };
  const getQuery = Type.Object(
    { include: Type.Optional(includeSchema(wishlistList)) },
    { additionalProperties: false },
  );

  app.get(
    '/wishlists',
    {
      config: { ...read, refusals: { 404: QUICK_FILTER_MISSING } },
      schema: {
        operationId: 'listWishlists',
        summary: 'List wishlists, newest first by default',
        tags,
        querystring: listQuerySchema(wishlistList, { quickFilter: true }),
        response: { 200: listEnvelope(Wishlist) },
      },
    },
    async (request) => {
      const { organizationId } = authOf(request);
      return wishlists.list(
        organizationId,
        await withQuickFilter(db, organizationId, 'wishlists', wishlistList, request.query),
      );
    },
  );

  app.post(
    '/wishlists/import',
    {
      config: {
        permission: 'wishlists:write',
        cost: 10,
        refusals: { 422: 'with strict true, a row names a customer, product or variant that does not exist' },
      },
      schema: {
        operationId: 'importWishlists',
        summary:
          'Create or update wishlists by remoteId (else by customer and name); each row replaces its list’s items',
        tags,
        body: WishlistImportBody,
        response: { 200: WishlistImportResult },
      },
    },
    async (request) => wishlists.import(authOf(request).organizationId, request.body),
  );

  app.get(
    '/wishlists/:id',
    {
      config: read,
      schema: {
        operationId: 'getWishlist',
        summary: 'One wishlist',
        tags,
        params: WishlistParams,
        querystring: getQuery,
        response: { 200: Wishlist },
      },
    },
    async (request) => wishlists.get(authOf(request).organizationId, request.params.id, request.query.include),
  );

  app.patch(
    '/wishlists/:id',
    {
      config: write,
      schema: {
        operationId: 'updateWishlist',
        summary: 'Rename a wishlist or replace its metadata',
        tags,
        params: WishlistParams,
        body: WishlistPatch,
        response: { 200: Wishlist },
      },
    },
    async (request) => wishlists.update(authOf(request).organizationId, request.params.id, request.body),
  );

  app.delete(
    '/wishlists/:id',
    {
      config: write,
      schema: {
        operationId: 'deleteWishlist',
        summary: 'Delete a wishlist and its items',
        tags,
        params: WishlistParams,
        response: { 200: Wishlist },
      },
    },
    async (request) => wishlists.delete(authOf(request).organizationId, request.params.id),
  );

  app.post(
    '/wishlists/:id/items',
    {
      config: {
        ...write,
        refusals: {
          409: 'the wishlist already holds 500 items',
          422: 'the product, or the variant on that product, does not exist',
        },
      },
      schema: {
        operationId: 'addWishlistItem',
        summary:
          'Add a product (and variant) to a wishlist; one it already holds keeps its item and takes the note sent',
        tags,
        params: WishlistParams,
        body: WishlistItemBody,
        response: {
          201: Wishlist,
          200: Wishlist,
        },
      },
    },
    async (request, reply) => {
      const { added, wishlist } = await wishlists.addItem(
        authOf(request).organizationId,
        request.params.id,
        request.body,
      );
      return reply.code(added ? 201 : 200).send(wishlist);
    },
  );

  app.delete(
    '/wishlists/:id/items/:itemId',
    {
      config: {
        ...write,
        refusals: { 404: 'the wishlist has no item with this id' },
      },
      schema: {
        operationId: 'removeWishlistItem',
        summary: 'Remove an item from a wishlist',
        tags,
        params: WishlistItemParams,
        response: { 200: Wishlist },
      },
    },
    async (request) => wishlists.removeItem(authOf(request).organizationId, request.params.id, request.params.itemId),
  );
}
