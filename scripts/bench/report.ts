// The results table: one section per issue, one row per measurement, printed at the end.

export type Verdict = 'PASS' | 'MISS';

export interface Row {
  name: string;
  /** Deepdesk's median (formatted). */
  ours: string;
  /** ripgrep run directly: the floor. */
  floor?: string;
  /** The deepagents package: the reference. */
  reference?: string;
  ratio?: string;
  target?: string;
  /** PASS / MISS per target, or why there is none. */
  result?: string;
}

export interface Section {
  title: string;
  rows: Row[];
  notes: string[];
}

const HEADERS: Record<keyof Row, string> = {
  name: 'benchmark',
  ours: 'deepdesk',
  floor: 'floor (same run)',
  reference: 'deepagents (ref)',
  ratio: 'ratio',
  target: 'target',
  result: 'result',
};
const COLUMNS = Object.keys(HEADERS) as (keyof Row)[];

export class Report {
  readonly sections: Section[] = [];

  section(title: string): Section {
    const section: Section = { title, rows: [], notes: [] };
    this.sections.push(section);
    return section;
  }

  verdicts(): { pass: number; miss: number; misses: string[] } {
    let pass = 0;
    const misses: string[] = [];
    for (const s of this.sections) {
      for (const r of s.rows) {
        pass += (r.result?.match(/PASS/g) ?? []).length;
        const m = (r.result?.match(/MISS/g) ?? []).length;
        if (m > 0) misses.push(`${r.name}: ${r.ours} (target ${r.target ?? '?'}; ${r.result})`);
      }
    }
    return { pass, miss: misses.length, misses };
  }

  render(): string {
    const cells = (r: Row): string[] => COLUMNS.map((c) => (c === 'name' ? `  ${r.name}` : (r[c] ?? '')));
    const widths = COLUMNS.map((c, i) => Math.max(HEADERS[c].length, ...this.sections.flatMap((s) => s.rows.map((r) => cells(r)[i]!.length))));
    const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' │ ').trimEnd();
    const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
    const out: string[] = [line(COLUMNS.map((c) => HEADERS[c])), rule];
    for (const s of this.sections) {
      out.push(`▸ ${s.title}`);
      for (const r of s.rows) out.push(line(cells(r)));
      for (const n of s.notes) out.push(`    · ${n}`);
    }
    const { pass, miss, misses } = this.verdicts();
    out.push(rule, `targets: ${pass} PASS, ${miss} MISS`);
    for (const m of misses) out.push(`  MISS ${m}`);
    return out.join('\n');
  }
}

export function verdict(ok: boolean): Verdict {
  return ok ? 'PASS' : 'MISS';
}

/** Progress on stderr, so the table on stdout stays clean. */
export function progress(message: string): void {
  process.stderr.write(`… ${message}\n`);
}
