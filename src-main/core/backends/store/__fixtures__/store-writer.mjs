// Child process of store-durability.test.ts: writes memories through the real
// StoreBackend as fast as it can and prints `ack N` once write N has returned (committed).
// Node 22 strips the TypeScript types itself; the resolve hook adds the `.ts` extension
// that the codebase's extensionless relative imports leave out.
// Usage: node store-writer.mjs DB_FILE COUNT

import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (err) {
      if (specifier.startsWith('.')) return nextResolve(`${specifier}.ts`, context);
      throw err;
    }
  },
});

const [dbFile, countArg] = process.argv.slice(2);
const { StoreBackend } = await import('../store.ts');

const store = new StoreBackend({ db: dbFile, namespace: 'durability' });
const count = Number(countArg);
for (let i = 0; i < count; i++) {
  const res = await store.write(`/burst/${i}.md`, durabilityContent(i));
  if (res.error !== undefined) {
    process.stderr.write(`write ${i} failed: ${res.error}\n`);
    process.exit(1);
  }
  process.stdout.write(`ack ${i}\n`);
}
store.close();

/** Must match durabilityContent in store-durability.test.ts. */
function durabilityContent(i) {
  return `memory ${i}\n${'line of text '.repeat(i % 17)}\nend ${i}\n`;
}
