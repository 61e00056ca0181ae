// Settings › Mounts (SPEC §13): the person's mounts, saved or set by a flag, and a git mount's history.

import { MountSpecError, parseMountPrefix } from '../../core/backends/mounts/mount-spec';
import { localMountProblem, parseSavedMount } from '../../core/backends/mounts/mount-flags';
import { answerWithin, LATER } from '../base/answer-within';
import { badRequestOn, ContractError, type MountsListDto } from '../contract';
import type { HandlersFor, WindowServices } from './handlers';

export function mountHandlers(w: WindowServices): HandlersFor<'mounts.'> {
  const { settings, mounts: mountTable, memories } = w.session;
  const { send } = w;
  const mountsList = (): MountsListDto => ({ mounts: mountTable.list(), memoriesStore: memories.label });
  // Settings › Mounts changed (here or in another window): the window's list follows.
  let mountsKey = JSON.stringify(settings.raw().mounts);
  settings.onChange((s) => {
    const key = JSON.stringify(s.mounts);
    if (key === mountsKey) return;
    mountsKey = key;
    send('mounts.changed', {});
  });
  return {
    'mounts.list': async () => mountsList(),
    'mounts.add': async ({ prefix, spec }) => {
      const mount = savedMount(prefix, spec);
      if (mountTable.list().some((m) => m.from === 'flag' && m.prefix === mount.prefix)) {
        throw new ContractError(`${mount.prefix} is set by --mount for this session; start Deepdesk without that flag to change it`, 'bad_request');
      }
      await settings.putMount(mount);
      return mountsList();
    },
    'mounts.remove': async ({ prefix }) => {
      const saved = settings.raw().mounts.find((m) => m.prefix === prefix || normalisedPrefix(m.prefix) === normalisedPrefix(prefix));
      if (saved === undefined) {
        const flagged = mountTable.list().some((m) => m.from === 'flag' && m.prefix === normalisedPrefix(prefix));
        throw new ContractError(flagged ? `${prefix} is set by --mount for this session and cannot be removed here` : `no saved mount at ${prefix}`, flagged ? 'bad_request' : 'not_found');
      }
      await settings.removeMount(saved.prefix);
      return mountsList();
    },
    'mounts.history': async ({ prefix, limit }) => {
      // A git mount is cloned on first use: the answer does not wait for a long clone (issue 42).
      const history = mountTable.history(normalisedPrefix(prefix), limit);
      const commits = await answerWithin(history);
      if (commits === LATER) {
        void history.catch(() => undefined).then(() => send('mounts.changed', {}));
        return { commits: [], cloning: true };
      }
      if (commits === undefined) throw new ContractError(`${prefix} is not a git mount`, 'not_found');
      return { commits };
    },
  };
}

/** A mount the window asks to save, checked as --mount checks one (folders absolute or ~/…). */
function savedMount(prefix: string, spec: string): { prefix: string; spec: string } {
  const parsed = badRequestOn(MountSpecError, () => parseSavedMount({ prefix, spec }));
  const problem = localMountProblem(parsed);
  if (problem !== null) throw new ContractError(`${parsed.prefix}: ${problem}`, 'bad_request');
  return { prefix: parsed.prefix, spec: spec.trim() };
}

function normalisedPrefix(prefix: string): string {
  try {
    return parseMountPrefix(prefix);
  } catch {
    return prefix;
  }
}

