// Stale memories by effect: a real project folder (package.json, Makefile, justfile,
// pyproject.toml, go.mod, a git repository with branches), real memories in a real SQLite
// store, and the marks the pass leaves.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, StoreBackend } from '../backends/store/store';
import { MemoryRecords } from './memory-records';
import { projectScope } from './memory-types';
import { namedThings } from './named-things';
import { localReader, probeFrom, projectProbe, type ProjectReader } from './project-probe';
import { missingName, refreshStale } from './stale-memories';

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'demo-app',
    workspaces: ['packages/*'],
    scripts: { lint: 'eslint .', test: 'vitest', build: 'tsc', 'db:migrate': 'node migrate.js' },
    dependencies: { zod: '^3' },
    devDependencies: { vitest: '^2', '@types/node': '^20' },
  }),
  'packages/app/package.json': JSON.stringify({ name: '@demo/app', scripts: { dev: 'vite' }, dependencies: { react: '^18' } }),
  'packages/app/src/main.ts': 'export {};\n',
  Makefile: '.PHONY: build deploy clean\nVERSION := 1.0\n\nbuild:\n\tnpm run build\n\ndeploy: build\n\t./scripts/build.sh\n\n%.pdf: %.md\n\tpandoc $< -o $@\n',
  justfile: 'set shell := ["bash", "-c"]\nalias f := fmt\n\nfmt:\n    prettier -w .\n\nrelease version:\n    echo {{version}}\n',
  'pyproject.toml': [
    '[project]',
    'name = "demo-tools"',
    'classifiers = [',
    '  "Programming Language :: Python",',
    ']',
    'dependencies = [',
    '  "requests>=2",',
    '  "PyYAML",',
    ']',
    '',
    '[project.optional-dependencies]',
    'dev = ["pytest>=8", "ruff"]',
    '',
    '[tool.poetry.dependencies]',
    'python = "^3.11"',
    'rich = "^13"',
  ].join('\n'),
  'go.mod': 'module example.com/demo\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n\nrequire (\n\tgolang.org/x/sync v0.7.0 // indirect\n)\n',
  '.gitignore': 'dist/\n*.log\n.env\n',
  'src/index.ts': 'export {};\n',
  'src/lib/util.ts': 'export {};\n',
  'scripts/build.sh': '#!/bin/sh\n',
  'docs/guide.md': '# Guide\n',
  '.github/workflows/ci.yml': 'on: push\n',
  'README.md': '# Demo\n',
  'config/.env.example': 'X=1\n',
};

/** Memories naming things the project has. */
const PRESENT = [
  'Build with `scripts/build.sh` before a release.',
  'The entry point is src/index.ts; helpers live in src/lib/util.ts.',
  'Run `npm run lint` before committing.',
  'Use pnpm run db:migrate to update the schema.',
  'Deploy with `make deploy`.',
  'Format code with `just fmt`, or `just f` for short.',
  'Long-lived work goes to the `release-2` branch.',
  'Login work is on branch `feature/login`.',
  'Validation uses the `zod` package.',
  'Tests run on the `vitest` dev dependency.',
  'HTTP calls use the `requests` dependency.',
  'The CLI is built on dependency `github.com/spf13/cobra`.',
  'CI is configured in /.github/workflows/ci.yml.',
  'Docs are in docs/guide.md, with an overview in ./README.md.',
  'The bundle goes to dist/bundle.js (made by npm run build).',
  'In packages/app, src/main.ts starts the dev server (`npm run dev`).',
  'Node types come from the `@types/node` package.',
  'Config is parsed with the `pyyaml` dependency; output with the `rich` package.',
  'Copy config/.env.example to config/.env and fill it in.',
  'Use the `golang.org/x/sync` dependency for errgroup.',
  'Make a PDF: `make guide.pdf`.',
  'The helpers in src/lib are small and pure.',
];

/** Memories naming one thing the project no longer has, and the reason each must get. */
const REMOVED: Array<[string, string]> = [
  ['Build with `scripts/old-build.sh` before a release.', 'scripts/old-build.sh no longer exists'],
  ['String helpers live in src/lib/strings.ts.', 'src/lib/strings.ts no longer exists'],
  ['Run `npm run typecheck` before committing.', 'npm run typecheck no longer exists'],
  ['Use yarn run storybook to see the components.', 'yarn run storybook no longer exists'],
  ['Publish with `make publish`.', 'make publish no longer exists'],
  ['Run `just bench` for the benchmarks.', 'just bench no longer exists'],
  ['Hotfixes go to the `release-1` branch.', 'branch release-1 no longer exists'],
  ['The old signup flow is on branch `feature/signup`.', 'branch feature/signup no longer exists'],
  ['Dates are parsed with the `moment` package.', 'dependency moment no longer exists'],
  ['Use dependency `lodash` for deep merges.', 'dependency lodash no longer exists'],
  ['The API is served by the `flask` dependency.', 'dependency flask no longer exists'],
  ['Routing uses dependency `github.com/gorilla/mux`.', 'dependency github.com/gorilla/mux no longer exists'],
  ['/scripts/build-docker.sh builds the image.', 'scripts/build-docker.sh no longer exists'],
  ['The old server is legacy/server.js.', 'legacy/server.js no longer exists'],
  ['Styles are kept in src/styles/ per component.', 'src/styles/ no longer exists'],
  ['The parser is in src/parser and has its own tests.', 'src/parser no longer exists'],
  ['Read ./docs/setup.md first.', 'docs/setup.md no longer exists'],
  ['Run make lint-all in CI.', 'make lint-all no longer exists'],
  ['Express typings come from the `@types/express` package.', 'dependency @types/express no longer exists'],
  ['Settings live in `config/settings.yaml`.', 'config/settings.yaml no longer exists'],
  ['The `old-main` branch holds the 1.x line.', 'branch old-main no longer exists'],
  ['Run `bun run e2e` for the browser tests.', 'bun run e2e no longer exists'],
  ['The image is built from docker/Dockerfile.', 'docker/Dockerfile no longer exists'],
];

/** Texts with slashes and names that are none of the project's. */
const DECOYS = [
  'See https://example.com/docs/guide.md for details.',
  'Keep personal notes in ~/notes/todo.md.',
  'Either tabs and/or spaces are fine here.',
  'The release was on 12/31/2024; about 1/2 of the tests are slow; 3/4 are done; 24/7 uptime.',
  'Files are opened read/write; input/output is buffered; a client/server model.',
  'We use TypeScript/Node.js; CI/CD runs on GitHub Actions; the work is I/O heavy.',
  'Make sure to run the tests; just remember to lint afterwards.',
  'The GET /api/users endpoint is paginated.',
  'Pipe noise to /dev/null and start scripts with /usr/bin/env node.',
  'Use /compact when the context gets long.',
  'Shared rules are in /memories/global/style.md.',
  'Always `git rebase origin/main` before pushing.',
  'The `else` branch of handle() returns early.',
  'Import it with `import { x } from "./lib/x"`.',
  'github.com/acme/tool is our fork of the tool.',
  'Upstream code: https://github.com/org/repo/blob/main/src/x.ts#L10',
  'Pros/cons: yes/no answers, on/off flags, a 50/50 split, speed in km/h.',
  'Run `npm test` for the unit tests.',
  'We prefer JSON/YAML over XML; the UI/UX review is weekly.',
  'A w/o flag, n/a for now.',
];

let root: string;
let dataDir: string;

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: root, stdio: 'pipe' });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'deepdesk-stale-project-'));
  dataDir = mkdtempSync(join(tmpdir(), 'deepdesk-stale-data-'));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  git('branch', 'release-2');
  git('branch', 'feature/login');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

function openStore(name: string) {
  const db = openDatabase(join(dataDir, `${name}.db`));
  return { db, records: new MemoryRecords(db), store: new StoreBackend({ db, namespace: 'memories' }) };
}

describe('namedThings', () => {
  it('reads paths, scripts, branches and dependencies as the memory names them', () => {
    expect(namedThings('Run `npm run lint` and then scripts/build.sh; deploy from the `release-2` branch with the `zod` package.')).toEqual([
      { kind: 'branch', name: 'release-2' },
      { kind: 'dependency', name: 'zod', called: 'package' },
      { kind: 'script', runner: 'npm', script: 'lint', written: 'npm run lint' },
      { kind: 'path', path: 'scripts/build.sh', weak: false },
    ]);
  });

  it('takes a branch or dependency name out of the paths', () => {
    expect(namedThings('Work on branch `feature/x`; types from dependencies `@types/node` and `zod@^3`.')).toEqual([
      { kind: 'branch', name: 'feature/x' },
      { kind: 'dependency', name: '@types/node', called: 'dependency' },
      { kind: 'dependency', name: 'zod', called: 'dependency' },
    ]);
  });

  it('strips Markdown and punctuation, a line number and a leading slash', () => {
    const paths = (text: string) => namedThings(text).flatMap((t) => (t.kind === 'path' ? [t.path] : []));
    expect(paths('See (`/src/x.ts:42`), [the guide](docs/guide.md), **lib/a.py**.')).toEqual(['src/x.ts', 'docs/guide.md', 'lib/a.py']);
  });

  it('names nothing in URLs, home paths, dates, prose slashes, routes and refs', () => {
    for (const text of DECOYS) {
      expect(namedThings(text).filter((t) => t.kind !== 'path' || !t.weak), text).toEqual([]);
    }
  });
});

describe('missingName', () => {
  it('judges nothing a project without those files cannot have', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'deepdesk-stale-bare-'));
    try {
      const probe = projectProbe(bare);
      const text = 'Run `npm run lint`, `make build` and `just fmt` on the `main` branch with the `zod` package.';
      expect(await missingName(namedThings(text), probe)).toBeNull();
      // A path is still judged: the project could have had it.
      expect(await missingName(namedThings('Build with scripts/build.sh.'), probe)).toBe('scripts/build.sh no longer exists');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('is not held up by a fifo where package.json should be', async () => {
    const odd = mkdtempSync(join(tmpdir(), 'deepdesk-stale-fifo-'));
    try {
      execFileSync('mkfifo', [join(odd, 'package.json')]);
      expect(await missingName(namedThings('Run `npm run lint`.'), projectProbe(odd))).toBeNull();
    } finally {
      rmSync(odd, { recursive: true, force: true });
    }
  });
});

describe('refreshStale', () => {
  it('flags at least 90% of memories naming removed things, under 5% of the others, with the missing name', async () => {
    const { db, records, store } = openStore('corpus');
    const scope = projectScope(root);
    const all = [...PRESENT.map((t) => [t, null] as const), ...REMOVED, ...DECOYS.map((t) => [t, null] as const)];
    for (const [i, [text]] of all.entries()) await store.write(`/m${String(i).padStart(2, '0')}.md`, `${text}\n`);

    const result = await refreshStale({ records, scope, store, probe: projectProbe(root) });
    expect(result.checked).toBe(all.length);

    const marks = records.staleIn(scope);
    const missed: string[] = [];
    const falseFlags: string[] = [];
    for (const [i, [text, reason]] of all.entries()) {
      const mark = marks.get(`/m${String(i).padStart(2, '0')}.md`) ?? null;
      if (reason !== null && mark !== reason) missed.push(`${text} → ${mark}`);
      if (reason === null && mark !== null) falseFlags.push(`${text} → ${mark}`);
    }
    const others = PRESENT.length + DECOYS.length;
    expect(REMOVED.length).toBeGreaterThanOrEqual(15);
    expect(others).toBeGreaterThanOrEqual(15);
    expect((REMOVED.length - missed.length) / REMOVED.length, missed.join('\n')).toBeGreaterThanOrEqual(0.9);
    expect(falseFlags.length / others, falseFlags.join('\n')).toBeLessThan(0.05);
    expect(result.stale).toBe(marks.size);
    db.close();
  });

  it('clears a mark when the name comes back, and when the memory no longer names it', async () => {
    const { db, records, store } = openStore('clears');
    const scope = projectScope(root);
    await store.write('/build.md', 'Build with /scripts/release.sh.\n');
    await store.write('/branch.md', 'Hotfixes go to the `hotfix` branch.\n');
    await store.write('/notes/script.md', 'Run `npm run typecheck` first.\n');

    expect(await refreshStale({ records, scope, store, probe: projectProbe(root) })).toEqual({ checked: 3, stale: 3 });
    expect(Object.fromEntries(records.staleIn(scope))).toEqual({
      '/build.md': 'scripts/release.sh no longer exists',
      '/branch.md': 'branch hotfix no longer exists',
      '/notes/script.md': 'npm run typecheck no longer exists',
    });

    writeFileSync(join(root, 'scripts/release.sh'), '#!/bin/sh\n');
    git('branch', 'hotfix');
    await store.write('/notes/script.md', 'Run `npm run lint` first.\n');
    try {
      expect(await refreshStale({ records, scope, store, probe: projectProbe(root) })).toEqual({ checked: 3, stale: 0 });
      expect(records.staleIn(scope).size).toBe(0);
      expect(records.marks(scope, '/build.md').stale).toBeNull();

      // Gone again: marked again.
      unlinkSync(join(root, 'scripts/release.sh'));
      await refreshStale({ records, scope, store, probe: projectProbe(root) });
      expect(records.marks(scope, '/build.md').stale).toBe('scripts/release.sh no longer exists');
    } finally {
      git('branch', '-D', 'hotfix');
      rmSync(join(root, 'scripts/release.sh'), { force: true });
      db.close();
    }
  });

  it('reads each of the project\'s files once for hundreds of memories', async () => {
    const { db, records, store } = openStore('many');
    const scope = projectScope(root);
    const texts = [...PRESENT, ...REMOVED.map(([t]) => t), ...DECOYS];
    for (let i = 0; i < 300; i++) await store.write(`/many/m${i}.md`, texts[i % texts.length]!);

    const reads = new Map<string, number>();
    const count = (key: string) => reads.set(key, (reads.get(key) ?? 0) + 1);
    const local = localReader(root);
    const counting: ProjectReader = {
      list: (folder) => (count(`list ${folder}`), local.list(folder)),
      readText: (file) => (count(`read ${file}`), local.readText(file)),
      refs: () => (count('refs'), local.refs()),
    };
    const started = Date.now();
    const result = await refreshStale({ records, scope, store, probe: probeFrom(counting) });
    expect(result.checked).toBe(300);
    expect([...reads].filter(([, n]) => n > 1)).toEqual([]);
    expect(reads.get('refs')).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    db.close();
  });
});
