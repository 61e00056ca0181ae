// The import graph of a source tree as the TypeScript compiler reads it (type-only imports
// and re-exports included), and its cycles: the strongly connected groups of files.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** One import of a file: its target and whether it carries only types (erased at build). */
export interface ImportEdge {
  readonly target: string;
  readonly typeOnly: boolean;
}

/** Every .ts/.tsx file under `root` (no declaration files), with the files it imports. */
export function importGraph(root: string): Map<string, string[]> {
  return new Map([...importEdges(root)].map(([file, edges]) => [file, [...new Set(edges.map((edge) => edge.target))]]));
}

/**
 * Every file's imports: static imports and re-exports, `import()` and `require()` with a
 * literal name (a loop held by a dynamic import is still a loop), each marked type-only when
 * nothing of it survives the build.
 */
export function importEdges(root: string): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(root)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const edges: ImportEdge[] = [];
    const add = (specifier: string, typeOnly: boolean): void => {
      const target = resolveRelative(file, specifier);
      if (target !== null) edges.push({ target, typeOnly });
    };
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
      add(specifier.text, isTypeOnly(statement));
    }
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
        const callee = node.expression;
        const dynamic = callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
        if (dynamic) add((node.arguments[0] as ts.StringLiteralLike).text, false);
      }
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(file, edges);
  }
  return graph;
}

function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    if (statement.isTypeOnly) return true;
    const clause = statement.exportClause;
    return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = statement.importClause;
  if (clause === undefined) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/** The groups of two or more files that import each other, directly or around a loop (Tarjan). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.js$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Folders of app whose folders are a floor each (the protocols above the host). */
const FOLDERS_OF_FLOORS = ['adapters'];

/**
 * The folder a file counts in for floors: `app/<folder>` (`app/adapters/<folder>`) and
 * `core/<folder>` (a file at the root of app or core is its own `app/<file>` unit), and `cli`,
 * `clients` as wholes.
 */
export function floorUnit(srcMain: string, file: string): string {
  const parts = file.slice(srcMain.length + 1).split('/');
  if (parts[0] === 'app' && FOLDERS_OF_FLOORS.includes(parts[1]!) && parts.length > 3) return `app/${parts[1]}/${parts[2]}`;
  if ((parts[0] === 'app' || parts[0] === 'core') && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  if (parts[0] === 'app' || parts[0] === 'core') return `${parts[0]}/${parts[1]!.replace(/\.tsx?$/, '')}`;
  return parts[0]!;
}

/** Folder → folder arrows of src-main (tests and test support left out), each with whether any file import between them carries values. */
export function folderArrows(srcMain: string, isTest: (file: string) => boolean = isTestFile): Map<string, Map<string, boolean>> {
  const arrows = new Map<string, Map<string, boolean>>();
  for (const [file, edges] of importEdges(srcMain)) {
    if (isTest(file)) continue;
    const from = floorUnit(srcMain, file);
    for (const edge of edges) {
      if (isTest(edge.target)) continue;
      const to = floorUnit(srcMain, edge.target);
      if (to === from) continue;
      const out = arrows.get(from) ?? new Map<string, boolean>();
      out.set(to, (out.get(to) ?? false) || !edge.typeOnly);
      arrows.set(from, out);
    }
  }
  return arrows;
}

export function isTestFile(file: string): boolean {
  return /\.test\.tsx?$|\.test-support\.ts$|\/testing\/|\/__fixtures__\//.test(file);
}
