/**
 * Declared cascades: what deleting a parent record (a customer, a product, an order, …) does to the rows other
 * resources hold under it. Each child resource declares its edges on its module; the composition root hands every
 * module to the platform, which gathers them here by parent, so a parent's deletion never names its children
 * (docs/architecture.md#declared-cascades). Within one resource folder plain foreign keys (ON DELETE CASCADE, or a
 * check of its own) are simpler and stay; the registry is for relations across resource folders.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { EventToRecord } from './event-to-record.js';

/**
 * A parent, declared once as a constant (src/resource-kit/cascade-parents.ts) that parent and children both import:
 * edges are keyed by the object, not by a name, so a misspelt parent fails to compile instead of failing to cascade.
 */
export interface CascadeParent {
  readonly name: string;
  /** The parent's table: every foreign key to it from another folder's table needs an edge (a test holds to it). */
  readonly table: string;
  /** Tables of the parent's own resource folder that refer to it, left to their foreign keys. */
  readonly ownTables: readonly string[];
}

/** A child table's column that refers to the parent (by foreign key, or by value where there is none). */
export interface CascadeReference {
  table: string;
  column: string;
}

/**
 * What the parent's deletion does to the child rows:
 * - `delete`: they are deleted with it (their deletion events sent);
 * - `detach`: their reference is set to null (their update events sent);
 * - `delete-or-detach`: one or the other, by an organization setting;
 * - `restrict`: a parent that still has them is not deleted (409);
 * - `foreign-key`: the foreign key's own ON DELETE action handles them, with no events of their own.
 */
export type CascadeAction = 'delete' | 'detach' | 'delete-or-detach' | 'restrict' | 'foreign-key';

/** What one edge did, inside the parent's deletion transaction. */
export interface CascadeStep {
  /** Events recorded before the parent's own deletion event. */
  events?: readonly EventToRecord[];
  /** Events recorded after it (rows the parent's foreign keys delete, read before they go). */
  eventsAfterParent?: readonly EventToRecord[];
  /** Work once the parent row is gone (e.g. what fed on the children refreshed). */
  afterParentDeleted?: () => Promise<void>;
}

/** One relation a resource holds under a parent, declared on the child's module. */
export interface CascadeEdge {
  parent: CascadeParent;
  /** The child's references to the parent that this edge answers for. */
  references: readonly CascadeReference[];
  action: CascadeAction;
  /**
   * Where the edge runs among the parent's edges, and so where its events fall: lowest first. A `restrict` edge comes
   * first, so that a refused deletion has changed nothing.
   */
  order: number;
  /**
   * Runs inside the parent's deletion transaction, after the parent is locked and before its row goes; throws to
   * refuse (a `restrict` edge's 409). Absent for a `foreign-key` edge.
   */
  run?(trx: Transaction<DB>, organizationId: string, parentId: string): Promise<CascadeStep | void>;
}

/** What a parent's deletion collected from its edges, to record around its own event. */
export interface CascadeOutcome {
  eventsBefore: EventToRecord[];
  eventsAfter: EventToRecord[];
  /** Call once the parent row is deleted, before recordEvents (which comes last). */
  parentDeleted(): Promise<void>;
}

/** A parent's cascade: every edge declared under it, in order. */
export type Cascade = (trx: Transaction<DB>, organizationId: string, parentId: string) => Promise<CascadeOutcome>;

/** Every parent's cascade, built from the modules' declarations. */
export interface CascadeRegistry {
  /** The parent's cascade; a parent no edge names gets one that does nothing. */
  of(parent: CascadeParent): Cascade;
  /** Every declared edge, by parent (for the test that every reference to a parent is declared). */
  readonly edges: ReadonlyMap<CascadeParent, readonly CascadeEdge[]>;
}

/** Gathers the edges the modules declare by parent, each parent's in declared order. */
export function cascadeRegistry(modules: readonly { cascades?: readonly CascadeEdge[] }[]): CascadeRegistry {
  const edges = new Map<CascadeParent, CascadeEdge[]>();
  for (const edge of modules.flatMap((module) => module.cascades ?? [])) {
    const list = edges.get(edge.parent) ?? [];
    list.push(edge);
    edges.set(edge.parent, list);
  }
  for (const list of edges.values()) list.sort((a, b) => a.order - b.order);
  const cascades = new Map<CascadeParent, Cascade>();
  return {
    edges,
    of(parent) {
      let cascade = cascades.get(parent);
      if (!cascade) {
        cascade = cascadeOf(edges.get(parent) ?? []);
        cascades.set(parent, cascade);
      }
      return cascade;
    },
  };
}

function cascadeOf(edges: readonly CascadeEdge[]): Cascade {
  const steps = edges.filter((edge) => edge.run);
  return async (trx, organizationId, parentId) => {
    const eventsBefore: EventToRecord[] = [];
    const eventsAfter: EventToRecord[] = [];
    const afterwards: (() => Promise<void>)[] = [];
    for (const edge of steps) {
      const step = await edge.run!(trx, organizationId, parentId);
      if (!step) continue;
      eventsBefore.push(...(step.events ?? []));
      eventsAfter.push(...(step.eventsAfterParent ?? []));
      if (step.afterParentDeleted) afterwards.push(step.afterParentDeleted);
    }
    return {
      eventsBefore,
      eventsAfter,
      parentDeleted: async () => {
        for (const work of afterwards) await work();
      },
    };
  };
}
