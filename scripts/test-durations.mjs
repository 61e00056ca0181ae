// Writes scripts/test-durations.json (the sequencer's order) from Vitest's cache of the last
// run: run the whole suite first (`npm test`), on a machine like CI's.
import { globSync, readFileSync, writeFileSync } from 'node:fs';

const durations = {};
for (const cache of globSync('node_modules/.vite/vitest/*/results.json')) {
  for (const project of Object.values(JSON.parse(readFileSync(cache, 'utf8')).projects ?? {})) {
    for (const [file, { duration }] of Object.entries(project.files ?? {})) durations[file] = Math.round(duration / 100) / 10;
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([, a], [, b]) => b - a));
writeFileSync('scripts/test-durations.json', JSON.stringify(sorted, null, 0).replace(/,"/g, ',\n"') + '\n');
console.log(`${Object.keys(sorted).length} files timed`);
