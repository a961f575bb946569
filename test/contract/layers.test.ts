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
        "import type { OperationExample } from '../http/types.js';\nexport type Example = OperationExample;\n",
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
});
