// What a folder's configuration would load and which of it is not (or no longer) trusted
// (SPEC §9), for the window's `Trust this folder?` list, `deepdesk trust` and the line
// `deepdesk run` prints.

import { createHash } from 'node:crypto';
import { CONFIG_KINDS, folderConfiguration, type ConfigKind } from '../config/registry';
import { realPathOf } from '../fs/real-path';
import type { TrustGate, TrustReport } from './types';
import type { TrustEntry } from '../config/trust-entry';

/** Every kind of the registry, read for the folder (real path): what would load, and what of it is not trusted. */
export function trustReport(folder: string, store: TrustGate, env: NodeJS.ProcessEnv, kinds: readonly ConfigKind[] = CONFIG_KINDS): Promise<TrustReport> {
  return Promise.resolve().then(() => {
    const real = realPathOf(folder);
    const { entries, problems } = folderConfiguration(real, env, kinds);
    return { folder: real, entries, untrusted: entries.filter((entry) => !store.isTrusted(real, entry)), problems };
  });
}

/**
 * What the person is shown, as one digest: `Trust folder` and `deepdesk trust` send it back,
 * and trust is given only while the folder's configuration still gives the same one.
 */
export function shownDigest(report: Pick<TrustReport, 'untrusted'>): string {
  return createHash('sha256')
    .update(report.untrusted.map((e) => `${e.key}=${e.digest}\0${e.label}`).sort().join('\n'))
    .digest('hex');
}

export const UNTRUSTED_LINE = "deepdesk: not loading this folder's configuration";

const NAMES_SHOWN = 5;

/**
 * The one stderr line for a run on a folder whose configuration is not (all) trusted, e.g.
 * `deepdesk: not loading this folder's configuration (2 entries not trusted: MCP server a,
 * MCP server b); run 'deepdesk trust' or pass --trust`; undefined when all of it is trusted.
 */
export function untrustedNotice(report: TrustReport): string | undefined {
  const count = report.untrusted.length;
  if (count === 0) return undefined;
  const names = report.untrusted.slice(0, NAMES_SHOWN).map(entryName);
  const more = count > NAMES_SHOWN ? `, and ${count - NAMES_SHOWN} more` : '';
  return `${UNTRUSTED_LINE} (${count} ${count === 1 ? 'entry' : 'entries'} not trusted: ${names.join(', ')}${more}); run 'deepdesk trust' or pass --trust`;
}

/** `MCP server github` from `MCP server github: npx …`. */
function entryName(entry: TrustEntry): string {
  const colon = entry.label.indexOf(': ');
  return colon >= 0 ? entry.label.slice(0, colon) : entry.label;
}
