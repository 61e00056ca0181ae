// Deterministic source-like text for the generated data: TypeScript, Python, Markdown,
// JSON, CSS and YAML built from a vocabulary, so searches meet realistic line lengths,
// identifiers and keyword frequencies.

export type Rng = () => number;

/** mulberry32: small, fast, seedable. */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'user item config cache request response value index buffer token session path file record entry event handler state ' +
  'result error option queue worker node tree list map key name count size offset limit stream chunk message thread model ' +
  'tool backend store query filter order page layout render update create remove read write parse format load save fetch ' +
  'send build check resolve merge split join sort find match apply reset close open start stop flush emit listen watch ' +
  'schedule retry timeout signal context scope module package version schema field column row table view panel button ' +
  'input output source target header footer body content text line word char byte width height color theme style image ' +
  'icon link route server client socket channel pool lock task job batch step stage phase plan rule policy role account ' +
  'profile group member owner agent memory history summary archive snapshot backup restore upload download sync diff ' +
  'patch commit branch tag release deploy metric trace span level debug info warn'
).split(' ');

const TYPES = ['string', 'number', 'boolean', 'unknown', 'void', 'Date', 'Uint8Array', 'string[]', 'number[]', 'Map<string, number>', 'Promise<void>'];

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

export function word(rng: Rng): string {
  return pick(rng, WORDS);
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function camel(rng: Rng, parts = int(rng, 1, 3)): string {
  let s = word(rng);
  for (let i = 1; i < parts; i++) s += cap(word(rng));
  return s;
}

export function pascal(rng: Rng, parts = int(rng, 1, 3)): string {
  return cap(camel(rng, parts));
}

export function sentence(rng: Rng, min = 6, max = 16): string {
  const n = int(rng, min, max);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(word(rng));
  return cap(words.join(' ')) + '.';
}

function tsStatement(rng: Rng, indent: string): string {
  switch (int(rng, 0, 11)) {
    case 0:
      return `${indent}const ${camel(rng)} = ${camel(rng)}.${camel(rng, 1)}(${camel(rng, 1)}, ${int(rng, 0, 4096)});`;
    case 1:
      return `${indent}if (${camel(rng)} === undefined) return ${pick(rng, ['null', 'undefined', '[]', '{}', 'false', '0'])};`;
    case 2:
      return `${indent}for (const ${word(rng)} of ${camel(rng)}.${camel(rng, 1)}s) ${camel(rng)} += ${word(rng)}.${word(rng)};`;
    case 3:
      return `${indent}// ${sentence(rng, 5, 14)}`;
    case 4:
      return `${indent}await this.${camel(rng)}.${camel(rng, 1)}({ ${word(rng)}: ${camel(rng)}, ${word(rng)}: ${int(rng, 1, 999)} });`;
    case 5:
      return `${indent}return ${camel(rng)}.${camel(rng, 1)}(${camel(rng, 1)}) ?? ${camel(rng, 1)};`;
    case 6:
      return `${indent}let ${camel(rng)}: ${pick(rng, TYPES)} = ${pick(rng, ["''", '0', 'false', 'null', '[]', 'new Map()'])};`;
    case 7:
      return `${indent}throw new ${pascal(rng, 2)}Error(\`${sentence(rng, 3, 8)} \${${camel(rng)}}\`);`;
    case 8:
      return `${indent}${camel(rng)}.push(...${camel(rng)}.filter((${word(rng)}) => ${word(rng)}.${word(rng)} > ${int(rng, 0, 100)}));`;
    case 9:
      return `${indent}this.${camel(rng)} = ${camel(rng)} ? ${camel(rng)} : this.${camel(rng)};`;
    case 10:
      return `${indent}log.${pick(rng, ['debug', 'info', 'warn'])}('${sentence(rng, 3, 9)}', { ${word(rng)}, ${word(rng)} });`;
    default:
      return `${indent}${camel(rng)}(${camel(rng, 1)}, '${word(rng)}-${word(rng)}');`;
  }
}

function tsBlock(rng: Rng, out: string[]): void {
  switch (int(rng, 0, 3)) {
    case 0: {
      out.push(`/** ${sentence(rng)} */`, `export interface ${pascal(rng)} {`);
      for (let i = int(rng, 2, 9); i > 0; i--) out.push(`  ${camel(rng)}${rng() < 0.3 ? '?' : ''}: ${pick(rng, TYPES)};`);
      out.push('}', '');
      break;
    }
    case 1: {
      out.push(`export class ${pascal(rng)} {`, `  private readonly ${camel(rng)} = new Map<string, ${pascal(rng, 1)}>();`, '');
      for (let m = int(rng, 1, 4); m > 0; m--) {
        out.push(`  async ${camel(rng)}(${camel(rng, 1)}: ${pick(rng, TYPES)}): Promise<${pick(rng, TYPES)}> {`);
        for (let i = int(rng, 2, 10); i > 0; i--) out.push(tsStatement(rng, '    '));
        out.push('  }', '');
      }
      out.push('}', '');
      break;
    }
    default: {
      out.push(`export ${rng() < 0.4 ? 'async ' : ''}function ${camel(rng)}(${camel(rng, 1)}: ${pick(rng, TYPES)}, ${camel(rng, 1)}: ${pick(rng, TYPES)}): ${pick(rng, TYPES)} {`);
      for (let i = int(rng, 3, 14); i > 0; i--) out.push(tsStatement(rng, '  '));
      out.push('}', '');
    }
  }
}

function pyBlock(rng: Rng, out: string[]): void {
  out.push(`def ${camel(rng, 2).replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())}(${word(rng)}, ${word(rng)}=None):`, `    """${sentence(rng)}"""`);
  for (let i = int(rng, 2, 10); i > 0; i--) {
    const r = rng();
    if (r < 0.25) out.push(`    if ${word(rng)} is None:`, `        return ${pick(rng, ['None', '[]', '{}', 'False'])}`);
    else if (r < 0.5) out.push(`    ${word(rng)} = ${word(rng)}.${word(rng)}(${word(rng)}, ${int(rng, 0, 99)})`);
    else if (r < 0.7) out.push(`    for ${word(rng)} in ${word(rng)}s:`, `        ${word(rng)}.append(${word(rng)})`);
    else out.push(`    # ${sentence(rng, 4, 12)}`);
  }
  out.push(`    return ${word(rng)}`, '', '');
}

function mdBlock(rng: Rng, out: string[]): void {
  const r = rng();
  if (r < 0.15) out.push(`## ${cap(word(rng))} ${word(rng)} ${word(rng)}`, '');
  else if (r < 0.3) {
    for (let i = int(rng, 2, 6); i > 0; i--) out.push(`- ${sentence(rng, 4, 12)}`);
    out.push('');
  } else if (r < 0.42) {
    out.push('```ts');
    for (let i = int(rng, 2, 8); i > 0; i--) out.push(tsStatement(rng, ''));
    out.push('```', '');
  } else {
    const parts: string[] = [];
    for (let i = int(rng, 2, 6); i > 0; i--) parts.push(sentence(rng));
    out.push(parts.join(' '), '');
  }
}

function jsonText(rng: Rng, targetBytes: number): string {
  const items: string[] = [];
  let size = 0;
  while (size < targetBytes) {
    const item = `  { "id": ${int(rng, 1, 1e6)}, "${word(rng)}": "${camel(rng)}", "${word(rng)}": ${int(rng, 0, 5000)}, "${word(rng)}": ${rng() < 0.5} }`;
    items.push(item);
    size += item.length + 2;
  }
  return `[\n${items.join(',\n')}\n]\n`;
}

function cssBlock(rng: Rng, out: string[]): void {
  out.push(`.${word(rng)}-${word(rng)} {`);
  for (let i = int(rng, 2, 7); i > 0; i--) out.push(`  ${pick(rng, ['margin', 'padding', 'color', 'width', 'height', 'gap', 'border'])}: ${int(rng, 0, 64)}px;`);
  out.push('}', '');
}

export type TextKind = 'ts' | 'py' | 'md' | 'json' | 'css' | 'yml';

/** About `targetBytes` of text of `kind`, ending with a newline. */
export function generateText(rng: Rng, kind: TextKind, targetBytes: number): string {
  if (kind === 'json') return jsonText(rng, targetBytes);
  const out: string[] = [];
  if (kind === 'ts') {
    for (let i = int(rng, 2, 7); i > 0; i--) out.push(`import { ${pascal(rng)}, ${camel(rng)} } from '${pick(rng, ['./', '../', '../../'])}${word(rng)}-${word(rng)}';`);
    out.push('');
  }
  let size = out.reduce((n, l) => n + l.length + 1, 0);
  while (size < targetBytes) {
    const before = out.length;
    if (kind === 'ts') tsBlock(rng, out);
    else if (kind === 'py') pyBlock(rng, out);
    else if (kind === 'md') mdBlock(rng, out);
    else if (kind === 'css') cssBlock(rng, out);
    else out.push(`${word(rng)}:`, `  ${word(rng)}: ${camel(rng)}`, `  run: npm run ${word(rng)}`);
    for (let i = before; i < out.length; i++) size += out[i]!.length + 1;
  }
  return out.join('\n') + '\n';
}
