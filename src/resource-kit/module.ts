/**
 * What a resource module may offer other resources through the composition root, beyond the platform's
 * ResourceModule: its lists (for quick filters and export jobs) and its synchronous imports (for import jobs), each
 * under the name clients know it by. `src/compose.ts` builds the quick filters', export jobs' and import jobs' name
 * lists from these, so a new list or import is declared once, on its own module.
 */
import type { ResourceModule } from '../core/types.js';
import type { ImportResource } from '../records/import-job.js';
import type { QuickFilterResource } from '../records/quick-filter.js';
import type { ExportSource } from './export-csv.js';
import type { ImportSource } from './import-source.js';

export interface ResourceModuleWithLists extends ResourceModule {
  /** Its lists by name: each one quick filters belong to and export jobs read (docs/api.md#export-jobs). */
  lists?: Readonly<Partial<Record<QuickFilterResource, ExportSource>>>;
  /** Its synchronous imports by name, which import jobs run (docs/api.md#import-jobs). */
  imports?: Readonly<Partial<Record<ImportResource, ImportSource>>>;
}
