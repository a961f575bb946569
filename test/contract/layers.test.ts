import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

// The import rules of docs/architecture.md are enforced by lint (eslint.config.js, boundaries/dependencies). These
// lint a file that does not exist on disk, placed where a real one would be, so the rule is tested as configured.
const eslint = new ESLint({ cwd: ROOT });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${filePath}` });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'boundaries/dependencies' || m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('the layer rule', () => {
  it("refuses a resource importing another resource folder's internals", async () => {
    const errors = await layerErrors(
      'src/resources/orders/bad-import.ts',
      "import { productList } from '../products/list.js';\nexport const list = productList;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/resource.*orders.*resource.*products/);
  });

  it("allows a resource to import another resource folder's index.ts, the records and the platform", async () => {
    const errors = await layerErrors(
      'src/resources/orders/good-import.ts',
      [
        "import { productList } from '../products/index.js';",
        "import { toCustomer } from '../../records/customer.js';",
        "import { recordEvents } from '../../events/outbox.js';",
        'export const used = [productList, toCustomer, recordEvents];',
        '',
      ].join('\n'),
    );
    expect(errors).toEqual([]);
  });

  it('refuses the platform importing a resource, and the CLI importing one past the composition root', async () => {
    expect(
      await layerErrors(
        'src/lists/bad-import.ts',
        "import { orderList } from '../resources/orders/index.js';\nexport const list = orderList;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'src/cli/bad-import.ts',
        "import { ordersResource } from '../resources/orders/index.js';\nexport const resource = ordersResource;\n",
      ),
    ).toHaveLength(1);
  });

  it('keeps version changes to the platform: they name routes and events, never import a resource or record', async () => {
    expect(
      await layerErrors(
        'src/versions/changes/2099-01-01-bad.ts',
        "import { productList } from '../../resources/products/index.js';\nexport const list = productList;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'src/versions/changes/2099-01-01-bad.ts',
        "import { Product } from '../../records/product.js';\nexport const schema = Product;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'src/versions/changes/2099-01-01-good.ts',
        "import { ApiError } from '../../core/errors.js';\nexport const error = ApiError;\n",
      ),
    ).toEqual([]);
  });

  it('keeps the demo world to the platform: no resource or record, and no resource imports it', async () => {
    expect(
      await layerErrors(
        'src/demo/bad-import.ts',
        "import { orderList } from '../resources/orders/index.js';\nexport const list = orderList;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'src/demo/bad-import.ts',
        "import { Customer } from '../records/customer.js';\nexport const record = Customer;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'src/resources/orders/bad-import.ts',
        "import { DEMO } from '../../demo/ids.js';\nexport const ids = DEMO;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'src/demo/good-import.ts',
        "import type { OperationExample } from '../core/types.js';\nexport type Example = OperationExample;\n",
      ),
    ).toEqual([]);
  });

  it('refuses a resource importing the composition root', async () => {
    expect(
      await layerErrors(
        'src/resources/orders/bad-import.ts',
        "import { resources } from '../../compose.js';\nexport const all = resources;\n",
      ),
    ).toEqual([expect.stringMatching(/Only src\/cli imports the composition root/)]);
  });

  it('refuses a record importing a resource', async () => {
    expect(
      await layerErrors(
        'src/records/bad-import.ts',
        "import { orderList } from '../resources/orders/index.js';\nexport const list = orderList;\n",
      ),
    ).toHaveLength(1);
  });

  it('keeps http on top of the platform: events, auth and lists refuse to import it, and core imports neither', async () => {
    for (const folder of ['events', 'auth', 'lists']) {
      expect(
        await layerErrors(
          `src/${folder}/bad-import.ts`,
          "import { buildApp } from '../http/app.js';\nexport const app = buildApp;\n",
        ),
      ).toEqual([expect.stringMatching(/"services".*"http"/)]);
    }
    expect(
      await layerErrors(
        'src/core/bad-import.ts',
        "import { buildApp } from '../http/app.js';\nexport const app = buildApp;\n",
      ),
    ).toEqual([expect.stringMatching(/"core".*"http"/)]);
    expect(
      await layerErrors(
        'src/core/bad-import.ts',
        "import { recordEvents } from '../events/outbox.js';\nexport const record = recordEvents;\n",
      ),
    ).toEqual([expect.stringMatching(/"core".*"services"/)]);
  });

  it('keeps the core above the foundation only: config, db, util and ratelimit refuse to import it', async () => {
    expect(
      await layerErrors(
        'src/db/bad-import.ts',
        "import { ApiError } from '../core/errors.js';\nexport const error = ApiError;\n",
      ),
    ).toEqual([expect.stringMatching(/"foundation".*"core"/)]);
    expect(
      await layerErrors(
        'src/core/good-import.ts',
        [
          "import type { DB } from '../db/schema.js';",
          "import type { Config } from '../config/index.js';",
          "import { uuidv7 } from '../util/ids.js';",
          'export type Both = [DB, Config];',
          'export const id = uuidv7;',
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src/events/good-import.ts',
        "import { ApiError } from '../core/errors.js';\nexport const error = ApiError;\n",
      ),
    ).toEqual([]);
  });

  it("refuses loyalty's engine importing an API folder, loyalty's index.ts or body helpers", async () => {
    for (const target of ['../rewards/service.js', '../index.js', '../body.js']) {
      expect(
        await layerErrors(
          'src/resources/loyalty/engine/bad-import.ts',
          `import * as above from '${target}';\nexport const used = above;\n`,
        ),
      ).toEqual([expect.stringMatching(/"loyalty-engine".*"resource".*loyalty/)]);
    }
  });

  it("lets loyalty's API folders import the engine, and keeps the engine from every other resource", async () => {
    expect(
      await layerErrors(
        'src/resources/loyalty/rewards/good-import.ts',
        "import { applyPoints } from '../engine/ledger.js';\nexport const apply = applyPoints;\n",
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src/resources/loyalty/engine/good-import.ts',
        "import { queueMails } from '../../mail/index.js';\nexport const queue = queueMails;\n",
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src/resources/orders/bad-import.ts',
        "import { applyPoints } from '../loyalty/engine/ledger.js';\nexport const apply = applyPoints;\n",
      ),
    ).toEqual([expect.stringMatching(/"resource".*orders.*"loyalty-engine"/)]);
  });
});
