// Child process of checkpoints-durability.test.ts: records agent steps that each write a
// few hundred files, as fast as it can, and prints `ack N` once checkpoint N is committed
// and `step N` when step N starts (so the parent can kill it mid-step or mid-commit).
// Node 22 strips the TypeScript types; the hook adds the `.ts` the imports leave out.
// Usage: node checkpoint-writer.mjs DATA_DIR FOLDER

import fs from 'node:fs';
import path from 'node:path';
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

const [dataDir, folder] = process.argv.slice(2);
const { CheckpointStore } = await import('../store.ts');
const { CheckpointRecorder } = await import('../recorder.ts');

const store = CheckpointStore.open(dataDir);
const recorder = new CheckpointRecorder(store, folder);
for (let round = 0; ; round++) {
  process.stdout.write(`step ${round}\n`);
  const outcome = await recorder.step({ threadId: 'killed', messageIndex: round, messageLine: `round ${round}` }, 'all', async () => {
    const dir = path.join(folder, `r${round}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), `round ${round} file ${i}\n`.repeat(1 + (i % 7)));
    fs.writeFileSync(path.join(folder, 'seed.txt'), `seed after round ${round}\n`);
  });
  if (outcome.checkpoint) process.stdout.write(`ack ${round}\n`);
}
