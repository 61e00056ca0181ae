// Child process of store-postgres.test.ts: one Deepdesk process among several writing to
// the same PostgreSQL memories at once through the real PostgresStoreBackend.
// Node 22 strips the TypeScript types itself; the resolve hook adds the `.ts` extension
// that the codebase's extensionless relative imports leave out.
// Usage: node pg-writer.mjs URL WRITER_ID COUNT
// Per step k: appends `W-k` to the shared log (an edit of its END marker), appends to its
// own log the same way, writes its own file, and overwrites one file every writer writes.

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

const [url, id, countArg] = process.argv.slice(2);
const { PostgresStoreBackend } = await import('../store-postgres.ts');

const store = new PostgresStoreBackend({ url, namespace: 'memories', author: `writer-${id}` });
const check = (what, res) => {
  if (res.error !== undefined) {
    process.stderr.write(`writer ${id}: ${what} failed: ${res.error}\n`);
    process.exit(1);
  }
};
for (let k = 0; k < Number(countArg); k++) {
  const line = `${id}-${k}`;
  check(`append ${line} to the shared log`, await store.edit('/shared/log.md', 'END', `${line}\nEND`));
  check(`append ${line} to its own log`, await store.edit(`/own/${id}.md`, 'END', `${line}\nEND`));
  check(`write its file ${line}`, await store.write(`/files/${id}/${k}.md`, `${line}\n`));
  check(`overwrite the common file`, await store.write('/shared/last.md', `${line}\n`));
}
await store.close();
process.stdout.write('done\n');
