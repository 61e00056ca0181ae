import type { BenchOptions } from './options';
import type { Report } from './report';
export async function benchWindow(_r: Report, _o: BenchOptions, _repo: string): Promise<void> {}
