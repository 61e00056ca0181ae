// A marketplace (SPEC §15): a git repository or a folder holding
// `.claude-plugin/marketplace.json` (`name`, `owner`, `plugins: [{name, source, description,
// version}]`); a plugin's `source` is a path inside the marketplace or
// `{"source": "git"|"url", "url", "ref"?, "sha"?}` / `{"source": "github", "repo", "ref"?, "sha"?}`.

import { join } from 'node:path';
import { z } from 'zod';
import { readJsonObject } from '../../config/mcp-config';
import { problemLine } from '../../config/mcp-config-types';

export const MARKETPLACE_FILE = join('.claude-plugin', 'marketplace.json');

const remote = z.object({
  source: z.enum(['git', 'url', 'github', 'git-subdir']),
  /** git-subdir: the plugin's folder inside the repository. */
  path: z.string().optional(),
  url: z.string().optional(),
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/name').optional(),
  ref: z.string().optional(),
  sha: z.string().regex(/^[0-9a-f]{7,40}$/i, 'must be a commit id').optional(),
});
export type RemotePluginSource = z.infer<typeof remote>;

const entry = z.object({
  name: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be kebab-case'),
  source: z.union([z.string(), remote]),
  description: z.string().optional(),
  version: z.string().optional(),
});

const schema = z.object({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be a name of letters, digits, ., - and _'),
  owner: z.union([z.string(), z.object({ name: z.string().optional() })]).optional(),
  // Entries are read one by one: one this version cannot use does not hide the others.
  plugins: z.array(z.unknown()),
});

export type MarketplacePlugin = z.infer<typeof entry>;
export interface Marketplace {
  name: string;
  plugins: MarketplacePlugin[];
  /** `FILE: plugins.N: …` for each entry that cannot be used. */
  problems: string[];
}

export function readMarketplace(dir: string): Marketplace | { problem: string } {
  const file = join(dir, MARKETPLACE_FILE);
  const read = readJsonObject(file, 'cli', '{"name": "…", "plugins": […]}');
  if ('problem' in read) return { problem: read.problem ? problemLine(read.problem) : `${file}: no such file (a marketplace needs .claude-plugin/marketplace.json)` };
  const checked = schema.safeParse(read.value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return { problem: `${file}: ${issue.path.join('.') || 'marketplace.json'}: ${issue.message}` };
  }
  const plugins: MarketplacePlugin[] = [];
  const problems: string[] = [];
  checked.data.plugins.forEach((raw, i) => {
    const one = entry.safeParse(raw);
    if (one.success) plugins.push(one.data);
    else problems.push(`${file}: plugins.${i}${one.error.issues[0]!.path.length > 0 ? `.${one.error.issues[0]!.path.join('.')}` : ''}: ${one.error.issues[0]!.message}`);
  });
  return { name: checked.data.name, plugins, problems };
}

/** The git URL of a remote source. */
export function remoteUrl(source: RemotePluginSource): string | undefined {
  if (source.source === 'github') return source.repo !== undefined ? `https://github.com/${source.repo}.git` : undefined;
  return source.url;
}
