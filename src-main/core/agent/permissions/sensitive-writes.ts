// Sensitive writes inside the folder (SPEC §23 (5)): files that later run or steer a program
// outside the sandbox — CI, hook managers, package and build scripts, editor tasks, environment
// files and agent instructions. A write to one is reviewed before it lands (by a file tool, or
// found in a sandboxed command's write layer before the layer is applied). Paths are the
// folder's virtual paths (`/`-rooted), matched as protected paths are (any case, trailing dots).

import { protectedPattern } from './protected-paths';

export type SensitiveKind = 'ci' | 'hooks' | 'build-scripts' | 'editor-tasks' | 'environment' | 'agent-instructions';

export interface SensitiveWrite {
  kind: SensitiveKind;
  /** In words, for the reviewer and the person: "a CI definition (.github/)". */
  what: string;
}

/** A file's contents before and after the write; null: the file is absent (created or deleted). */
export interface WriteContents {
  before: string | null;
  after: string | null;
}

const BY_PATH: ReadonlyArray<{ kind: SensitiveKind; what: string; patterns: readonly string[] }> = [
  { kind: 'ci', what: 'a CI definition', patterns: ['/.github', '/.gitlab-ci.yml', '/.gitlab-ci.yaml', '/.gitlab', '/.circleci', '/.travis.yml', '/azure-pipelines.yml', '/Jenkinsfile', '/.buildkite'] },
  { kind: 'hooks', what: "a hook manager's configuration", patterns: ['/.husky', '/.pre-commit-config.yaml', '/.pre-commit-config.yml', '/lefthook.yml', '/lefthook.yaml', '/.lefthook.yml', '/.lefthook.yaml', '/lefthook-local.yml', '/.lefthook', '/.githooks'] },
  { kind: 'build-scripts', what: 'a build script', patterns: ['**/Makefile', '**/GNUmakefile', '**/*.mk', '**/Dockerfile', '**/Dockerfile.*', '**/*.dockerfile', '**/Containerfile', '**/*.sh', '**/*.bash', '**/*.zsh', '**/setup.py', '**/setup.cfg', '**/conftest.py', '**/build.rs', '**/Rakefile', '**/justfile', '**/Justfile', '**/Taskfile.yml', '**/docker-compose.yml', '**/docker-compose.yaml', '**/compose.yml', '**/compose.yaml', '**/.npmrc', '**/.yarnrc.yml'] },
  { kind: 'editor-tasks', what: 'editor tasks or settings', patterns: ['/.vscode', '/.idea', '**/.vscode/tasks.json', '**/.vscode/launch.json', '**/.vscode/settings.json'] },
  { kind: 'environment', what: 'an environment file', patterns: ['**/.env*', '**/.envrc'] },
  { kind: 'agent-instructions', what: 'agent instructions', patterns: ['**/AGENTS.md', '**/AGENTS.override.md', '**/CLAUDE.md', '**/CLAUDE.local.md', '**/GEMINI.md', '/.cursorrules', '/.cursor/rules', '/.clinerules', '/.github/copilot-instructions.md'] },
];

/** What steers another agent's next run, here or in the person's own terminal (its servers, hooks, allow lists): its folder's configuration, as its vendor says (app/agents/vendors). */
const AGENT_CONFIGURATION = "another agent's configuration";

/** `package.json` fields that run programs: scripts (the lifecycle ones among them), bins, native builds, git hooks. */
const PACKAGE_RUN_FIELDS = ['scripts', 'bin', 'gypfile', 'husky', 'simple-git-hooks', 'pre-commit', 'lint-staged', 'config', 'packageManager', 'workspaces'];

/** pyproject.toml tables that build, install entry points or steer the test runner. */
const PYPROJECT_RUN_TABLE = /^(build-system|project\.(scripts|gui-scripts|entry-points)|tool\.(poetry\.(scripts|plugins|build)|setuptools|hatch|pdm\.(scripts|build)|pytest|flit|maturin|scikit-build|uv))(\.|$)/;

/**
 * Why a write to `path` is sensitive, or null. With `contents`, package.json and pyproject.toml
 * count only when a field that runs something changes. `agents`: other agents' configuration in
 * a folder (`/.codex`, `/opencode.json`), from their vendors.
 */
export function sensitiveWrite(path: string, contents?: WriteContents, agents: readonly string[] = []): SensitiveWrite | null {
  const name = path.replaceAll('\\', '/').split('/').filter(Boolean).pop()?.replace(/[. ]+$/, '').toLowerCase() ?? '';
  if (name === 'package.json' && protectedPattern(path, ['**/package.json']) !== null) {
    return changedFields(contents, packageRunFields) ? { kind: 'build-scripts', what: 'package scripts (package.json scripts, bin or lifecycle fields)' } : null;
  }
  if (name === 'pyproject.toml') {
    return changedFields(contents, pyprojectRunTables) ? { kind: 'build-scripts', what: 'build sections of pyproject.toml' } : null;
  }
  for (const entry of [...BY_PATH, { kind: 'agent-instructions' as const, what: AGENT_CONFIGURATION, patterns: agents }]) {
    const pattern = protectedPattern(path, entry.patterns);
    if (pattern !== null) return { kind: entry.kind, what: `${entry.what} (${pattern.replace(/^\*\*\//, '').replace(/^\//, '')})` };
  }
  return null;
}

/** Whether what runs differs between before and after; without contents, or when either cannot be read, it is taken to differ. */
function changedFields(contents: WriteContents | undefined, extract: (text: string) => string | null): boolean {
  if (contents === undefined) return true;
  const before = contents.before === null ? '' : extract(contents.before);
  const after = contents.after === null ? '' : extract(contents.after);
  return before === null || after === null || before !== after;
}

function packageRunFields(text: string): string | null {
  try {
    const json: unknown = JSON.parse(text);
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
    const record = json as Record<string, unknown>;
    return JSON.stringify(PACKAGE_RUN_FIELDS.map((field) => record[field] ?? null));
  } catch {
    return null;
  }
}

function pyprojectRunTables(text: string): string | null {
  let table = '';
  const kept: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (header !== null) table = header[1]!.replace(/["'\s]/g, '');
    if (PYPROJECT_RUN_TABLE.test(table) && line !== '' && !line.startsWith('#')) kept.push(line);
  }
  return kept.join('\n');
}
