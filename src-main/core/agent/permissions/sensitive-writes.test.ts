import { describe, expect, it } from 'vitest';
import { AGENT_CONFIG } from './agent-config.test-support';
import { sensitiveWrite } from './sensitive-writes';

describe('sensitive writes inside the folder (SPEC §23)', () => {
  it.each([
    ['/.github/workflows/ci.yml', 'ci'],
    ['/.GitHub/workflows/ci.yml', 'ci'],
    ['/.gitlab-ci.yml', 'ci'],
    ['/.circleci/config.yml', 'ci'],
    ['/.husky/pre-commit', 'hooks'],
    ['/.pre-commit-config.yaml', 'hooks'],
    ['/lefthook.yml', 'hooks'],
    ['/Makefile', 'build-scripts'],
    ['/services/api/Dockerfile', 'build-scripts'],
    ['/scripts/deploy.sh', 'build-scripts'],
    ['/setup.py', 'build-scripts'],
    ['/tests/conftest.py', 'build-scripts'],
    ['/.vscode/tasks.json', 'editor-tasks'],
    ['/.idea/workspace.xml', 'editor-tasks'],
    ['/.env.local', 'environment'],
    ['/.envrc', 'environment'],
    ['/AGENTS.md', 'agent-instructions'],
    ['/packages/web/CLAUDE.md', 'agent-instructions'],
    ['/GEMINI.md', 'agent-instructions'],
    ['/.gemini/settings.json', 'agent-instructions'],
    ['/.codex/config.toml', 'agent-instructions'],
    ['/opencode.json', 'agent-instructions'],
    ['/.cursor/mcp.json', 'agent-instructions'],
    ['/Makefile.', 'build-scripts'],
  ])('%s is %s', (path, kind) => {
    expect(sensitiveWrite(path, undefined, AGENT_CONFIG)?.kind).toBe(kind);
  });

  it.each(['/src/index.ts', '/README.md', '/docs/github.md', '/src/.github.ts', '/notes/AGENTS.md.bak', '/test/app.test.py'])('%s is ordinary', (path) => {
    expect(sensitiveWrite(path)).toBeNull();
  });

  it('package.json counts when what it runs changes, not for a version bump', () => {
    const before = JSON.stringify({ name: 'a', version: '1.0.0', scripts: { test: 'vitest' } });
    expect(sensitiveWrite('/package.json', { before, after: JSON.stringify({ name: 'a', version: '1.0.1', scripts: { test: 'vitest' } }) })).toBeNull();
    expect(sensitiveWrite('/package.json', { before, after: JSON.stringify({ name: 'a', version: '1.0.0', scripts: { test: 'vitest', postinstall: 'curl x | sh' } }) })?.kind).toBe('build-scripts');
    expect(sensitiveWrite('/pkgs/x/package.json', { before: null, after: JSON.stringify({ bin: { x: 'x.js' } }) })?.kind).toBe('build-scripts');
    expect(sensitiveWrite('/package.json', { before, after: '{ not json' })?.kind).toBe('build-scripts');
    expect(sensitiveWrite('/package.json')?.kind).toBe('build-scripts');
  });

  it('pyproject.toml counts for its build and entry-point tables only', () => {
    const before = '[project]\nname = "a"\nversion = "1"\n[build-system]\nrequires = ["hatchling"]\n';
    expect(sensitiveWrite('/pyproject.toml', { before, after: before.replace('version = "1"', 'version = "2"') })).toBeNull();
    expect(sensitiveWrite('/pyproject.toml', { before, after: before.replace('hatchling', 'evil') })?.kind).toBe('build-scripts');
    expect(sensitiveWrite('/pyproject.toml', { before, after: `${before}[project.scripts]\nx = "a:main"\n` })?.kind).toBe('build-scripts');
    expect(sensitiveWrite('/pyproject.toml', { before, after: `${before}[tool.pytest.ini_options]\naddopts = "-p evil"\n` })?.kind).toBe('build-scripts');
  });
});
