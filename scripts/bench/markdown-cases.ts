// Generated pathological Markdown, text the model or the folder controls: shared by the rows
// that send it to the window (window-answers, markdown-window).

/** Answers whose parse time grows much faster than their size, by kind. */
export const PATHOLOGICAL = {
  /** 240 KB of `_a`: quadratic emphasis matching. */
  underscores: '_a'.repeat(120_000),
  /** 60,000 nested list markers on one line. */
  nestedLists: '- '.repeat(60_000) + 'x',
  /** 600 lines, each indented one level deeper. */
  nestedListLines: Array.from({ length: 600 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n'),
  /** Mixed emphasis delimiters. */
  stars: '*a**a***a'.repeat(16_000),
  /** Long runs of openers. */
  openers: '['.repeat(50_000) + '('.repeat(50_000) + '`'.repeat(50_000) + '[a]('.repeat(10_000),
  /** A 10,000-level blockquote, on one line and as a staircase of lines. */
  blockquotes: '>'.repeat(10_000) + ' deep\n\n' + Array.from({ length: 2_000 }, (_, i) => '>'.repeat(i + 1) + ' q').join('\n'),
};

/** 150 KB of `_a`: under the window's plain-text size limit, so its parse deadline must catch it. */
export const UNDERSCORES_MID = '_a'.repeat(75_000);

/** `sections` sections of ordinary Markdown (about 400 characters each, numbered from `from`): headings, lists, emphasis, links, code blocks. */
export function ordinaryMarkdown(sections: number, from = 0): string {
  const parts: string[] = [];
  for (let i = from; i < from + sections; i++) {
    parts.push(`## Section ${i}`, `Some **bold** text, some _emphasis_, a [link](https://example.com/${i}) and \`src/file${i}.ts\`.`);
    parts.push(`- first point ${i}\n- second point\n  - nested`, '```ts\n' + `const value${i} = compute(${i});\nexport function f${i}(x: number): number {\n  return x * ${i};\n}\n` + '```');
  }
  return parts.join('\n\n');
}

/** A 400 KB `.md` file of the pathological kinds, ending in `END-OF-FILE`. */
export function pathologicalFile(): string {
  const { underscores, stars, openers, nestedLists } = PATHOLOGICAL;
  return [underscores, stars.slice(0, 60_000), openers.slice(0, 60_000), nestedLists.slice(0, 40_000)].join('\n\n') + '\n\nEND-OF-FILE\n';
}
