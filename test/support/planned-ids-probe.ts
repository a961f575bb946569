// Run as a child by test/util/planned-ids.test.ts, in a process of its own (the test runner keeps async context
// storage of its own switched on). Prints JSON: the ids made inside and after a planned scope, and whether Node is
// tracking promises (async hooks on) before, during and after it.
import { executionAsyncId } from 'node:async_hooks';
import { uuidv7, withPlannedIds } from '../../src/util/ids.js';

// With promise hooks off, a reaction runs with execution id 0; with them on, every promise gets an id of its own.
const promisesTracked = async () => (await Promise.resolve().then(() => executionAsyncId())) !== 0;

const before = await promisesTracked();
let during = false;
const inside = await withPlannedIds(['planned-1', 'planned-2'], async () => {
  await null;
  during = await promisesTracked();
  const nested = await withPlannedIds(['planned-3'], async () => uuidv7());
  return [uuidv7(), uuidv7(), nested, uuidv7()];
});
const after = await promisesTracked();
const afterId = uuidv7();
// A later scope switches the storage on again (the demo seed opens one after another).
const again = await withPlannedIds(['planned-4'], async () => {
  await null;
  return uuidv7();
});
const afterAgain = await promisesTracked();
console.log(JSON.stringify({ before, during, after, inside, afterId, again, afterAgain }));
