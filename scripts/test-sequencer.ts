import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Vitest runs one project's files before the next's. Ours differ in what they wait on: the
 * end-to-end files keep a core busy (Chromium, `deepdesk serve`), the unit files mostly wait
 * on real processes. Spread evenly through the run, each worker's wait is another's CPU.
 * Within a project the order stays Vitest's (longest or largest first).
 */
export default class InterleavedSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const byProject = new Map<string, TestSpecification[]>();
    for (const file of sorted) byProject.set(file.project.name, [...(byProject.get(file.project.name) ?? []), file]);
    const lists = [...byProject.values()].map((list) => ({ list, taken: 0 }));
    const out: TestSpecification[] = [];
    while (out.length < sorted.length) {
      // The project furthest behind its share of the run goes next.
      const next = lists.filter((l) => l.taken < l.list.length).reduce((a, b) => (a.taken / a.list.length <= b.taken / b.list.length ? a : b));
      out.push(next.list[next.taken++]!);
    }
    return out;
  }
}
