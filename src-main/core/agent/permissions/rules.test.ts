import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../backends/filesystem/glob-match';
import { matchesCommandPattern } from './command-patterns';
import { protectedPattern } from './protected-paths';
import { reasonWords } from './reason';
import {
  DEFAULT_RULES,
  PROTECTED_PATHS,
  evaluatePermission,
  operationOf,
  suggestAllowRule,
  targetPaths,
} from './rules';
import type { PermissionRequest, PermissionRule } from './rules';

const run = (command: string): PermissionRequest => ({ tool: 'execute', args: { command } });
const write = (file_path: string): PermissionRequest => ({ tool: 'write_file', args: { file_path, content: 'x' } });
const edit = (file_path: string): PermissionRequest => ({ tool: 'edit_file', args: { file_path, old_string: 'a', new_string: 'b' } });
const read = (file_path: string): PermissionRequest => ({ tool: 'read_file', args: { file_path } });

const decide = (request: PermissionRequest, rules: readonly PermissionRule[] = DEFAULT_RULES) => evaluatePermission(request, rules).decision;

describe('operationOf and targetPaths', () => {
  it.each([
    ['ls', 'read'], ['read_file', 'read'], ['glob', 'read'], ['grep', 'read'],
    ['write_file', 'write'], ['edit_file', 'edit'], ['delete_file', 'delete'], ['execute', 'execute'],
    ['task', null], ['write_todos', null], ['toString', null], ['constructor', null],
  ])('%s → %s', (tool, operation) => {
    expect(operationOf(tool)).toBe(operation);
  });

  it('normalises file_path and path, and defaults folder tools to /', () => {
    expect(targetPaths(write('src//a.ts'))).toEqual(['/src/a.ts']);
    expect(targetPaths({ tool: 'grep', args: { pattern: 'x', path: 'sub\\dir/' } })).toEqual(['/sub/dir']);
    expect(targetPaths({ tool: 'ls', args: {} })).toEqual(['/']);
    expect(targetPaths({ tool: 'glob', args: { pattern: '*.ts' } })).toEqual(['/']);
    expect(targetPaths(write('../outside'))).toEqual([]);
    expect(targetPaths({ tool: 'task', args: { description: 'x' } })).toEqual([]);
    expect(targetPaths({ tool: 'write_file', args: null as unknown as Record<string, unknown> })).toEqual([]);
  });
});

describe('DEFAULT_RULES', () => {
  it.each<[PermissionRequest, string]>([
    [read('/a.ts'), 'allow'],
    [{ tool: 'ls', args: {} }, 'allow'],
    [{ tool: 'grep', args: { pattern: 'x' } }, 'allow'],
    [{ tool: 'glob', args: { pattern: '**/*' } }, 'allow'],
    [read('/.env'), 'allow'],
    [write('/a.ts'), 'ask'],
    [edit('/a.ts'), 'ask'],
    [{ tool: 'delete_file', args: { path: '/a.ts' } }, 'ask'],
    [run('ls'), 'ask'],
    [{ tool: 'task', args: { description: 'x', subagent_type: 'general-purpose' } }, 'allow'],
    [{ tool: 'write_todos', args: { todos: [] } }, 'allow'],
  ])('%j → %s', (request, decision) => {
    expect(decide(request)).toBe(decision);
  });

  it('explains the decision in words', () => {
    expect(evaluatePermission(write('/a.ts'), DEFAULT_RULES)).toMatchObject({
      decision: 'ask',
      reason: '`write_file` on /a.ts needs approval (writes, edits and deletes ask by default)',
      rule: DEFAULT_RULES[1],
    });
    expect(evaluatePermission(run('npm test'), DEFAULT_RULES).reason).toBe('`npm test` needs approval (shell commands ask by default)');
    expect(evaluatePermission({ tool: 'task', args: {} }, DEFAULT_RULES).reason).toBe(
      'no rule covers `task`, and it has no side effects of its own',
    );
  });

  it('without any rule: reads and unknown tools are allowed, the rest asks', () => {
    expect(decide(read('/a'), [])).toBe('allow');
    expect(decide({ tool: 'task', args: {} }, [])).toBe('allow');
    expect(evaluatePermission(write('/a'), [])).toMatchObject({ decision: 'ask', reason: '`write_file` on /a is not covered by an allow rule' });
    expect(evaluatePermission(run('rm -rf build'), [])).toMatchObject({ decision: 'ask', reason: '`rm -rf build` is not covered by an allow rule' });
  });
});

describe('rule matching', () => {
  it('the first matching rule decides', () => {
    const rules: PermissionRule[] = [
      { tools: ['write_file'], paths: ['/src/**'], decision: 'allow', id: 'src' },
      { tools: ['write_file'], decision: 'deny', id: 'no-writes' },
      { tools: ['write_file'], paths: ['/src/**'], decision: 'ask' },
    ];
    expect(evaluatePermission(write('/src/a.ts'), rules)).toMatchObject({ decision: 'allow', rule: rules[0], reason: '`write_file` on /src/a.ts is allowed (rule "src")' });
    expect(evaluatePermission(write('/docs/a.md'), rules)).toMatchObject({ decision: 'deny', rule: rules[1] });
    const reversed = [rules[1]!, rules[0]!];
    expect(decide(write('/src/a.ts'), reversed)).toBe('deny');
  });

  it('needs every field of a rule to match', () => {
    const rule: PermissionRule = { tools: ['edit_file'], operations: ['edit'], paths: ['*.md'], decision: 'allow' };
    expect(decide(edit('/docs/a.md'), [rule])).toBe('allow');
    expect(decide(edit('/docs/a.ts'), [rule])).toBe('ask');
    expect(decide(write('/docs/a.md'), [rule])).toBe('ask');
    expect(decide(edit('/docs/a.md'), [{ ...rule, operations: ['write'] }])).toBe('ask');
  });

  it("treats '*' as any tool and an empty list as nothing", () => {
    expect(decide({ tool: 'task', args: {} }, [{ tools: ['*'], decision: 'ask' }])).toBe('ask');
    expect(decide(read('/a'), [{ tools: ['*'], decision: 'deny' }])).toBe('deny');
    expect(decide(read('/a'), [{ tools: [], decision: 'deny' }])).toBe('allow');
    expect(decide(write('/a'), [{ paths: [], decision: 'allow' }])).toBe('ask');
  });

  it('matches operations, never for tools without one', () => {
    expect(decide({ tool: 'task', args: {} }, [{ operations: ['read', 'write', 'edit', 'delete', 'execute'], decision: 'deny' }])).toBe('allow');
    expect(decide({ tool: 'task', args: {} }, [{ tools: ['task'], decision: 'deny' }])).toBe('deny');
    expect(decide({ tool: 'write_todos', args: {} }, [{ decision: 'ask' }])).toBe('ask');
  });

  it('matches path globs against virtual paths with the glob tool semantics', () => {
    const allow = (paths: string[]): PermissionRule[] => [{ operations: ['write'], paths, decision: 'allow' }];
    expect(decide(write('/src/a.ts'), allow(['/src/**']))).toBe('allow');
    expect(decide(write('/src/deep/a.ts'), allow(['src/**/*.ts']))).toBe('allow');
    expect(decide(write('/lib/a.ts'), allow(['/src/**']))).toBe('ask');
    expect(decide(write('/deep/down/notes.md'), allow(['*.md']))).toBe('allow');
    expect(decide(write('/a.md'), allow(['/*.md']))).toBe('allow');
    expect(decide(write('/sub/a.md'), allow(['/*.md']))).toBe('ask');
    expect(decide(write('/a.tsx'), allow(['*.{ts,tsx}']))).toBe('allow');
    expect(decide(write('src\\a.ts'), allow(['/src/*.ts']))).toBe('allow');
    // `**` does not enter dot-folders; a rule must name them.
    expect(decide(write('/.github/ci.yml'), allow(['/**']))).toBe('ask');
    expect(decide(write('/.github/ci.yml'), allow(['**/*.yml']))).toBe('ask');
    // ... but a pattern without `/` matches the file name at any depth.
    expect(decide(write('/.github/ci.yml'), allow(['*.yml']))).toBe('allow');
    expect(decide(write('/.github/ci.yml'), allow(['/.github/**']))).toBe('allow');
    // A path rule never matches a call without paths, nor a command.
    expect(decide({ tool: 'task', args: {} }, [{ paths: ['**'], decision: 'deny' }])).toBe('allow');
    expect(decide(run('ls'), [{ paths: ['**'], decision: 'allow' }, ...DEFAULT_RULES])).toBe('ask');
  });

  it('checks deny rules on reads too', () => {
    const rules: PermissionRule[] = [{ operations: ['read'], paths: ['/secrets/**'], decision: 'deny' }, ...DEFAULT_RULES];
    expect(decide(read('/secrets/key.pem'), rules)).toBe('deny');
    expect(decide(read('/public/a.txt'), rules)).toBe('allow');
  });

  it('lets a command rule match only execute', () => {
    expect(decide(write('/a'), [{ commands: ['*'], decision: 'allow' }])).toBe('ask');
  });
});

describe('protected paths', () => {
  const allowAllWrites: PermissionRule[] = [{ operations: ['write', 'edit', 'delete'], decision: 'allow' }];

  it.each(['/.env', '/.env.local', '/sub/.env.local', '/deep/er/.envrc', '/.git', '/.git/config', '/.git/hooks/pre-commit', '/.git/refs/.hidden', '/vendor/lib/.git/config', '/.deepdesk/settings.json', '/.deepdesk', '/.GIT/config', '/.Env', '/.env.'])(
    'a write to %s still asks under an allow rule',
    (path) => {
      const verdict = evaluatePermission(write(path), allowAllWrites);
      expect(verdict.decision).toBe('ask');
      expect(verdict.rule).toBeUndefined();
    },
  );

  it.each(['/environment.ts', '/src/env.ts', '/.gitignore', '/.github/workflows/ci.yml', '/docs/git/notes.md', '/sub/.deepdesk/x', '/a.env'])(
    '%s is not protected',
    (path) => {
      expect(decide(write(path), allowAllWrites)).toBe('allow');
    },
  );

  it('says why', () => {
    expect(evaluatePermission(write('/sub/.env.local'), allowAllWrites).reason).toBe('writes to .env files always ask (/sub/.env.local)');
    expect(evaluatePermission(edit('/.git/config'), allowAllWrites).reason).toBe('writes inside .git/ always ask (/.git/config)');
    expect(evaluatePermission(write('/.deepdesk/rules.json'), allowAllWrites).reason).toBe("writes to Deepdesk's own data (/.deepdesk/) always ask (/.deepdesk/rules.json)");
  });

  it('keeps deny and does not touch reads', () => {
    expect(decide(write('/.env'), [{ paths: ['.env*'], decision: 'deny' }])).toBe('deny');
    expect(decide(read('/.env'), [{ operations: ['read'], decision: 'allow' }])).toBe('allow');
    expect(decide({ tool: 'delete_file', args: { path: '/.git' } }, allowAllWrites)).toBe('ask');
  });

  it('can be replaced through options', () => {
    expect(evaluatePermission(write('/.env'), allowAllWrites, { protectedPaths: [] }).decision).toBe('allow');
    const verdict = evaluatePermission(write('/infra/prod.tf'), allowAllWrites, { protectedPaths: [...PROTECTED_PATHS, '/infra/**'] });
    expect(verdict).toMatchObject({ decision: 'ask', reason: 'writes to protected paths (/infra/**) always ask (/infra/prod.tf)' });
  });

  it('matches paths named in commands anywhere in them', () => {
    expect(protectedPattern('.env', PROTECTED_PATHS, true)).toBe('**/.env*');
    expect(protectedPattern('./sub/.git/hooks/x', PROTECTED_PATHS, true)).toBe('**/.git/**');
    expect(protectedPattern('~/.deepdesk/deepdesk.db', PROTECTED_PATHS, true)).toBe('/.deepdesk/**');
    expect(protectedPattern('~/.deepdesk/deepdesk.db', PROTECTED_PATHS, false)).toBeNull();
    expect(protectedPattern('/', PROTECTED_PATHS)).toBeNull();
  });
});

describe('command patterns', () => {
  it.each<[string, string, boolean]>([
    ['npm test', 'npm test', true],
    ['npm test', 'npm test -- --watch', true],
    ['npm test', 'npm tests', false],
    ['npm test', 'npm', false],
    ['npm test', 'npx npm test', false],
    ['git status*', 'git status', true],
    ['git status*', 'git status --short', true],
    ['git status*', 'git statusx', true],
    ['ls *', 'ls', true],
    ['ls *', 'ls -la src', true],
    ['git * --force', 'git push origin --force', true],
    ['git * --force', 'git push origin', false],
    ['*', 'anything at all', true],
    ['*', '', true],
    ['', 'ls', false],
    ['  npm   test ', 'npm test', true],
    ['grep "a b"', 'grep a b', false],
  ])('%j on %j → %s', (pattern, command, expected) => {
    const words = command === '' ? [] : command.split(' ');
    expect(matchesCommandPattern(pattern, words)).toBe(expected);
  });

  it('matches a quoted pattern word against one command word', () => {
    expect(matchesCommandPattern('grep "a b"', ['grep', 'a b', 'f'])).toBe(true);
  });

  it('matches a command named by a path only when asked to (deny rules)', () => {
    expect(matchesCommandPattern('rm', ['/bin/rm', '-rf', '/'])).toBe(false);
    expect(matchesCommandPattern('rm', ['/bin/rm', '-rf', '/'], { matchBaseName: true })).toBe(true);
  });
});

describe('execute', () => {
  const rules: PermissionRule[] = [
    { tools: ['execute'], commands: ['rm -rf', 'git push'], decision: 'deny', id: 'dangerous' },
    { tools: ['execute'], commands: ['npm test', 'git status', 'git diff', 'ls *', 'cat', 'echo', 'wc', 'cd', 'grep', 'mkdir'], decision: 'allow', id: 'safe' },
    ...DEFAULT_RULES,
  ];

  it.each<[string, string]>([
    ['npm test', 'allow'],
    ['npm test -- --watch', 'allow'],
    ['git status && git diff', 'allow'],
    ['ls -la | wc -l', 'allow'],
    ['cd sub && npm test', 'allow'],
    ['(cd sub && npm test)', 'allow'],
    ['CI=1 npm test', 'allow'],
    ['FOO=1 npm test', 'ask'],
    ['timeout 60 npm test', 'allow'],
    ['npm  "test"', 'allow'],
    ['npm test 2>&1', 'allow'],
    ['npm test >/dev/null 2>&1', 'allow'],
    ['echo "a; rm -rf /"', 'allow'],
    ["echo 'a && rm -rf /'", 'allow'],
    ['echo a\\;rm -rf /', 'allow'],
    ['npm test; rm -rf build', 'deny'],
    ['npm test && /bin/rm -rf build', 'deny'],
    ['r\\m -rf build', 'deny'],
    ['"rm" -rf build', 'deny'],
    ['git push --force', 'deny'],
    ['npm test && make', 'ask'],
    ['npm test | tee out.txt', 'ask'],
    ['echo hi > out.txt', 'ask'],
    ['echo $(date)', 'ask'],
    ['echo "$(date)"', 'ask'],
    ["echo '$(date)'", 'allow'],
    ['echo `date`', 'ask'],
    ['sh -c "npm test"', 'ask'],
    ['bash -lc "npm test"', 'ask'],
    ['env X=1 bash -c "npm test"', 'ask'],
    ['ls | xargs rm', 'ask'],
    ['find . -delete', 'ask'],
    ['sudo npm test', 'ask'],
    ['PATH=./bin npm test', 'ask'],
    ['npm test "unterminated', 'ask'],
    // A deny rule on any part still denies, even when the command would only ask.
    ['echo $(rm -rf /)', 'deny'],
    ['bash -c "rm -rf /"', 'deny'],
    ['sudo rm -rf /', 'deny'],
    ['find . -exec rm -rf {} +', 'deny'],
    ['ls | xargs rm -rf', 'deny'],
    ['echo "$(git push)" > out', 'deny'],
  ])('%j → %s', (command, decision) => {
    expect(decide(run(command), rules)).toBe(decision);
  });

  it('says which part decided', () => {
    expect(evaluatePermission(run('npm test; rm -rf build'), rules)).toMatchObject({
      decision: 'deny',
      reason: '`rm -rf build` is denied (rule "dangerous")',
      rule: rules[0],
    });
    expect(evaluatePermission(run('npm test && make'), rules)).toMatchObject({
      decision: 'ask',
      reason: '`make` needs approval (shell commands ask by default)',
    });
    expect(evaluatePermission(run('npm test && make'), rules.slice(0, 2))).toMatchObject({
      decision: 'ask',
      reason: '`make` is not covered by an allow rule',
    });
    expect(evaluatePermission(run('echo hi > out.txt'), rules)).toMatchObject({
      decision: 'ask',
      reason: 'always asks: redirects output into a file (`>out.txt`)',
    });
    expect(evaluatePermission(run('git status && npm test'), rules)).toMatchObject({
      decision: 'allow',
      reason: '`git status` is allowed (rule "safe"); `npm test` is allowed (rule "safe")',
      rule: rules[1],
    });
  });

  it('lets a rule without commands match every part', () => {
    expect(decide(run('make && make install'), [{ operations: ['execute'], decision: 'allow' }])).toBe('allow');
    expect(decide(run('make && make install'), [{ tools: ['execute'], decision: 'deny' }])).toBe('deny');
    expect(decide(run('echo $(date)'), [{ tools: ['execute'], decision: 'allow' }])).toBe('ask');
    expect(decide(run('echo $(date)'), [{ tools: ['execute'], decision: 'deny' }])).toBe('deny');
  });

  it('does not let an allow rule match a command named by a path', () => {
    expect(decide(run('./git status'), rules)).toBe('ask');
    expect(decide(run('/usr/bin/git status'), rules)).toBe('ask');
  });

  it('asks for commands that name protected paths, even when allowed', () => {
    const allowAll: PermissionRule[] = [{ tools: ['execute'], commands: ['*'], decision: 'allow' }];
    expect(decide(run('ls -la src'), allowAll)).toBe('allow');
    expect(evaluatePermission(run('cp evil .git/hooks/pre-commit'), allowAll)).toMatchObject({
      decision: 'ask',
      reason: '`cp evil .git/hooks/pre-commit` names .git/hooks/pre-commit, and writes inside .git/ always ask',
    });
    expect(decide(run('cat sub/.env.local'), allowAll)).toBe('ask');
    expect(decide(run('tool --config=.env'), allowAll)).toBe('ask');
    expect(decide(run('rm -rf ~/.deepdesk'), allowAll)).toBe('ask');
    expect(decide(run('git status'), allowAll)).toBe('allow');
    expect(decide(run('curl https://example.com/.env'), allowAll)).toBe('allow');
    expect(decide(run('rm .env'), [{ tools: ['execute'], commands: ['rm'], decision: 'deny' }])).toBe('deny');
  });

  it('handles empty and missing commands', () => {
    expect(decide(run(''), rules)).toBe('ask');
    expect(decide(run('# nothing'), [{ tools: ['execute'], decision: 'allow' }])).toBe('allow');
    expect(evaluatePermission({ tool: 'execute', args: {} }, rules)).toMatchObject({ decision: 'ask', reason: 'the command is missing' });
  });
});

describe('suggestAllowRule', () => {
  it.each<[string, string[]]>([
    ['npm test', ['npm test']],
    ['npm test -- --watch', ['npm test']],
    ['git status --short && git diff HEAD', ['git status', 'git diff']],
    ['npm run build:prod', ['npm run build:prod']],
    ['uv run pytest -x', ['uv run pytest']],
    ['python3 -m pytest tests/', ['python3 -m pytest']],
    ['ls -la src | wc -l', ['ls', 'wc']],
    ['CI=1 cargo build --release', ['cargo build']],
    ['timeout 60 go test ./...', ['go test']],
    ['rm -rf build', ['rm -rf build']],
    ['git -C sub status', ['git status']],
    ['./scripts/check.sh "a b"', ['./scripts/check.sh "a b"']],
    ['cd sub && npm test', ['cd', 'npm test']],
  ])('%j → %j', (command, patterns) => {
    const rule = suggestAllowRule(run(command))!;
    expect(rule).toMatchObject({ tools: ['execute'], commands: patterns, decision: 'allow' });
    // The suggested rule allows the very command it was made from.
    expect(decide(run(command), [rule])).toBe('allow');
  });

  it('describes the scope', () => {
    expect(suggestAllowRule(run('npm test'))!.description).toBe('Always allow the command `npm test`, with any further arguments.');
    expect(suggestAllowRule(run('git status && npm test'))!.description).toBe('Always allow the commands `git status`, `npm test`, with any further arguments.');
  });

  it('offers no rule for a command that would still ask under it', () => {
    expect(suggestAllowRule(run('echo $(date) > out.txt'))).toBeUndefined();
    expect(suggestAllowRule(run('sort -o out in'))).toBeUndefined();
  });

  it('scopes writes and edits to the exact file', () => {
    const rule = suggestAllowRule(edit('src/app.ts'))!;
    expect(rule).toMatchObject({
      operations: ['write', 'edit'],
      paths: ['/src/app.ts'],
      decision: 'allow',
      description: 'Always allow writing and editing /src/app.ts (this file only).',
    });
    expect(decide(edit('/src/app.ts'), [rule])).toBe('allow');
    expect(decide(write('/src/app.ts'), [rule])).toBe('allow');
    expect(decide(write('/src/other.ts'), [rule])).toBe('ask');
    expect(decide(write('/lib/src/app.ts'), [rule])).toBe('ask');
  });

  it.each(['/a[1].ts', '/b*.ts', '/c?.md', '/d{x,y}.ts', '/.hidden/e.ts', '/f].ts'])('makes a rule that matches %s exactly', (path) => {
    const rule = suggestAllowRule(write(path))!;
    expect(decide(write(path), [rule])).toBe('allow');
    expect(compileGlob(rule.paths![0]!).matches('other.ts')).toBe(false);
  });

  it('notes that protected paths still ask', () => {
    const rule = suggestAllowRule(write('/.env'))!;
    expect(rule.description).toContain('still ask');
    expect(decide(write('/.env'), [rule])).toBe('ask');
  });

  it('covers deletes, reads and other tools', () => {
    expect(suggestAllowRule({ tool: 'delete_file', args: { path: '/tmp.txt' } })).toMatchObject({ operations: ['delete'], paths: ['/tmp.txt'] });
    expect(suggestAllowRule(read('/a.ts'))).toMatchObject({ tools: ['read_file'], paths: ['/a.ts'] });
    expect(suggestAllowRule({ tool: 'task', args: {} })).toEqual({ tools: ['task'], decision: 'allow', description: 'Always allow `task`' });
  });
});

describe('commands with leading environment assignments (issue 42)', () => {
  const PYTEST: PermissionRule[] = [{ tools: ['execute'], commands: ['python3 -m pytest'], decision: 'allow' }, ...DEFAULT_RULES];
  const PYTEST_ANY: PermissionRule[] = [{ tools: ['execute'], commands: ['python3 -m pytest *'], decision: 'allow' }, ...DEFAULT_RULES];

  it.each([
    'PYTHONPATH=src python3 -m pytest',
    'PYTHONPATH=src python3 -m pytest -q tests/test_pricing.py',
    'PYTHONPATH="src:lib" python3 -m pytest',
    'PYTHONPATH=./src/pkg python3 -m pytest',
    'CI=1 PYTHONPATH=src LANG=C.UTF-8 python3 -m pytest',
    'PYTHONDONTWRITEBYTECODE=1 python3 -m pytest',
    'env PYTHONPATH=src python3 -m pytest',
    'PYTHONPATH=src python3 -m pytest && PYTHONPATH=lib python3 -m pytest -x',
  ])('a rule for the command allows %j: the assignments are harmless', (command) => {
    expect(decide(run(command), PYTEST)).toBe('allow');
    expect(decide(run(command), PYTEST_ANY)).toBe('allow');
  });

  it.each([
    ['PYTHONPATH=/tmp/evil python3 -m pytest', /sets PYTHONPATH to folders outside the project/],
    ['PYTHONPATH=../elsewhere python3 -m pytest', /PYTHONPATH/],
    ['PYTHONPATH=src/../../elsewhere python3 -m pytest', /PYTHONPATH/],
    ['PYTHONPATH=src:/usr/evil python3 -m pytest', /PYTHONPATH/],
    ['PYTHONPATH=~/evil python3 -m pytest', /PYTHONPATH/],
    ['PYTHONPATH=src:~/evil python3 -m pytest', /PYTHONPATH/],
    ['PYTHONPATH=$HOME/evil python3 -m pytest', /computed/],
    ['PYTHONPATH= python3 -m pytest', /PYTHONPATH/],
    ['PYTHONPATH+=src python3 -m pytest', /PYTHONPATH/],
    ['env PYTHONPATH=/tmp/evil python3 -m pytest', /PYTHONPATH/],
    ['PYTHONSTARTUP=x.py python3 -m pytest', /sets PYTHONSTARTUP/],
    ['PYTHONHOME=/tmp python3 -m pytest', /sets PYTHONHOME/],
    ['PYTHONWARNINGS=ignore::evil.Warn python3 -m pytest', /sets PYTHONWARNINGS/],
    ['PYTEST_ADDOPTS="-p evil" python3 -m pytest', /sets PYTEST_ADDOPTS/],
    ['PATH=.:$PATH python3 -m pytest', /sets PATH/],
    ['LD_PRELOAD=./x.so python3 -m pytest', /sets LD_PRELOAD/],
    ['LD_LIBRARY_PATH=. python3 -m pytest', /sets LD_LIBRARY_PATH/],
    ['DYLD_INSERT_LIBRARIES=x python3 -m pytest', /sets DYLD_INSERT_LIBRARIES/],
    ['BASH_ENV=x python3 -m pytest', /sets BASH_ENV/],
    ['ENV=x python3 -m pytest', /sets ENV/],
    ['GIT_DIR=x python3 -m pytest', /sets GIT_DIR/],
    ['NODE_OPTIONS=--require=./x.js python3 -m pytest', /sets NODE_OPTIONS/],
    ['NODE_PATH=/tmp/evil python3 -m pytest', /sets NODE_PATH/],
    ['PERL5OPT=-Mevil python3 -m pytest', /sets PERL5OPT/],
    ['RUBYOPT=-revil python3 -m pytest', /sets RUBYOPT/],
    ['SOME_FLAG=1 python3 -m pytest', /only known-inert variables/],
  ])('%j still asks under that rule', (command, reason) => {
    const verdict = evaluatePermission(run(command), PYTEST_ANY);
    expect(verdict.decision).toBe('ask');
    expect(verdict.reason).toMatch(reason);
  });

  it('a rule for another command does not allow it because of harmless assignments', () => {
    expect(decide(run('PYTHONPATH=src python3 -m pip install evil'), PYTEST_ANY)).toBe('ask');
    expect(decide(run('PYTHONPATH=src python3 evil.py'), PYTEST)).toBe('ask');
  });

  it.each([
    'PYTHONPATH=src python3 -m pytest',
    'PYTHONPATH=src python3 -m pytest -x tests/',
    'CI=1 npm test',
    'env PYTHONPATH=src python3 -m pytest -q',
  ])('the rule offered for %j allows the same command next time', (command) => {
    expect(decide(run(command))).toBe('ask');
    const rule = suggestAllowRule(run(command));
    expect(rule).toBeDefined();
    expect(rule!.commands!.some((p) => p.includes('='))).toBe(false);
    expect(decide(run(command), [rule!, ...DEFAULT_RULES])).toBe('allow');
  });

  it('offers no rule for a command whose assignments always ask', () => {
    expect(suggestAllowRule(run('PYTHONPATH=/tmp/evil python3 -m pytest'))).toBeUndefined();
    expect(suggestAllowRule(run('LD_PRELOAD=x.so python3 -m pytest'))).toBeUndefined();
  });

  it('the matcher sees the command without its assignments', () => {
    expect(matchesCommandPattern('python3 -m pytest', ['python3', '-m', 'pytest', '-q'])).toBe(true);
  });
});

describe('the reason as data', () => {
  it('gives every verdict its reason as data, said by reasonWords in the same words', () => {
    const cases = [
      evaluatePermission({ tool: 'write_file', args: { file_path: '/a.ts' } }, DEFAULT_RULES),
      evaluatePermission({ tool: 'write_file', args: { file_path: '/a.ts' } }, []),
      evaluatePermission({ tool: 'execute', args: { command: 'ls && curl x' } }, [{ commands: ['ls'], decision: 'allow' }]),
      evaluatePermission({ tool: 'execute', args: { command: 'ls; pwd' } }, [{ commands: ['ls', 'pwd'], decision: 'allow', id: 'nav' }]),
      evaluatePermission({ tool: 'execute', args: {} }, DEFAULT_RULES),
      evaluatePermission({ tool: 'mcp__srv__tool', args: {} }, []),
      evaluatePermission({ tool: 'write_file', args: { file_path: '/.env' } }, [{ tools: ['write_file'], decision: 'allow' }]),
      evaluatePermission({ tool: 'execute', args: { command: 'rm x' } }, [{ commands: ['rm *'], decision: 'deny' }]),
    ];
    for (const verdict of cases) expect(verdict.reason).toBe(reasonWords(verdict.why));
    expect(cases[0]!.why).toEqual({ kind: 'rule', subject: { tool: 'write_file', paths: ['/a.ts'] }, decision: 'ask', rule: { description: 'writes, edits and deletes ask by default' } });
    expect(cases[2]!.why).toEqual({ kind: 'not-allowed', subject: { command: 'curl x' } });
    expect(cases[4]!.why).toEqual({ kind: 'command-missing' });
    expect(cases[5]!.why).toEqual({ kind: 'mcp-tool-not-allowed', subject: { tool: 'mcp__srv__tool', paths: [] } });
    expect(cases[6]!.why).toMatchObject({ kind: 'protected-path', path: '/.env' });
    expect(cases[7]!.why).toEqual({ kind: 'rule', subject: { command: 'rm x' }, decision: 'deny', rule: { index: 0 } });
  });
});
