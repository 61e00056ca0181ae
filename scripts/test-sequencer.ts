import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file took in a full run on CI's 2-core machine (a fresh clone has no Vitest
 * cache, which would otherwise order by file size): the longest files start first, so that
 * none of them starts near the end and keeps the run going alone. Refresh it from a full run
 * with `node scripts/test-durations.mjs`.
 */
const DURATIONS: Record<string, number> = JSON.parse(readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'));
/** A file not timed yet (new): started among the longer ones rather than last. */
const UNKNOWN_S = 10;

/**
 * Vitest runs one project's files before the next's. Ours differ in what they wait on: the
 * end-to-end files keep a core busy (Chromium, `deepdesk serve`), the unit files mostly wait
 * on real processes. Spread evenly through the run, each worker's wait is another's CPU.
 */
export default class InterleavedSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = (file: TestSpecification) => file.project.config.root;
    const seconds = (file: TestSpecification) => DURATIONS[file.moduleId.slice(root(file).length + 1)] ?? UNKNOWN_S;
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of sorted) byProject.set(file.project.name, [...(byProject.get(file.project.name) ?? []), file]);
    const lists = [...byProject.values()].map((list) => {
      list.sort((a, b) => seconds(b) - seconds(a));
      return { list, taken: 0, spent: 0, total: list.reduce((sum, file) => sum + seconds(file), 0) };
    });
    const out: TestSpecification[] = [];
    while (out.length < sorted.length) {
      // The project furthest behind its share of the run's time goes next.
      const next = lists.filter((l) => l.taken < l.list.length).reduce((a, b) => (a.spent / a.total <= b.spent / b.total ? a : b));
      const file = next.list[next.taken++]!;
      next.spent += seconds(file);
      out.push(file);
    }
    return out;
  }
}
