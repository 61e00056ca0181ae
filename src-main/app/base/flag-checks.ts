// A client's `--model`, `--mount` and `--memories-store` flags, checked before a session opens: a bad
// value is bad usage (`bad_request`; the command exits 2) with the reason (SPEC §5, §13).

import { memoriesStoreTextError } from '../../core/backends/store/memories-store-text';
import { MountSpecError, type MountSpec } from '../../core/backends/mounts/mount-spec';
import { localMountProblem, parseMountFlags } from '../../core/backends/mounts/mount-flags';
import { ModelConfigError } from '../../core/models/errors';
import { parseModelSpec } from '../../core/models/model-spec';
import { badRequestOn, ContractError } from '../contract/contract-error';

/** The `--mount` flags, parsed and checked (a local folder must be there). */
export function checkedMountFlags(flags: readonly string[] | undefined, cwd: string): MountSpec[] {
  const specs = badRequestOn(MountSpecError, () => parseMountFlags(flags ?? [], cwd));
  for (const spec of specs) {
    const problem = localMountProblem(spec);
    if (problem !== null) throw new ContractError(`--mount ${spec.text}: ${problem}`, 'bad_request');
  }
  return specs;
}

/** `--memories-store`, checked. */
export function checkedMemoriesStore(flag: string | undefined): string | undefined {
  if (flag === undefined) return undefined;
  const problem = memoriesStoreTextError(flag);
  if (problem !== null) throw new ContractError(`--memories-store: ${problem}`, 'bad_request');
  return flag.trim();
}

/** A `provider:model` spec, checked (a bad one is bad usage). */
export function checkedModelSpec(spec: string): string {
  badRequestOn(ModelConfigError, () => parseModelSpec(spec));
  return spec;
}
