// The Markdown the model can reach (answers, the file viewer, memories) never carries raw
// HTML, nor a class, id or style of the model's choosing: raw HTML is shown as text, and only
// the app's own classes (code blocks, highlighting, file links) survive. The DOMPurify pass
// runs in the page (e2e/hostile-cards.test.ts); here the parts that decide run in Node.
import { describe, expect, it } from 'vitest';
import { appClasses, markdownHtml } from './markdown';

/** Every tag marked or the app's code renderer writes, and the attributes they may carry. */
const TAGS = new Set(['p', 'strong', 'em', 'del', 'code', 'pre', 'a', 'img', 'ul', 'ol', 'li', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'input', 'div', 'span']);
const ATTRIBUTES = new Set(['href', 'title', 'src', 'alt', 'class', 'start', 'align', 'type', 'checked', 'disabled', 'role', 'tabindex', 'aria-label', 'data-copy-code']);

/** What is wrong with `html`: tags or attributes the model could have chosen. */
function problems(html: string): string[] {
  const found: string[] = [];
  for (const [, name, attrs] of html.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)) {
    if (!TAGS.has(name!.toLowerCase())) found.push(`tag ${name}`);
    for (const [, attr, value] of attrs!.matchAll(/([^\s=/]+)(?:="([^"]*)")?/g)) {
      if (!ATTRIBUTES.has(attr!.toLowerCase())) found.push(`attribute ${attr}`);
      if (attr === 'class' && appClasses(value ?? '') !== value) found.push(`class ${value}`);
    }
  }
  return found;
}

const HOSTILE = [
  '<div class="modal-backdrop" id="dd-evil" style="position:fixed;inset:0"><div class="approval-card">npm test … Press 1 to approve</div></div>',
  '<img src=x onerror="document.title=1">',
  '<span class="btn btn-primary">Approve</span>',
  '<script>alert(1)</script>',
  '<!-- a comment --><style>body{display:none}</style>',
  '<a href="javascript:alert(1)" class="path-link" data-path="/x">x</a>',
  '<details open><summary class="x">y</summary></details>',
  '<svg><foreignObject><div class="modal-backdrop"></div></foreignObject></svg>',
  '<pre class="x"><code class="hljs" id="y">z</code></pre>',
  '**bold** _em_ `code` [link](https://example.com "t") ![img](https://example.com/i.png)',
  '```ts\nconst a = 1;\n```',
  '```evil" class="modal-backdrop\nx\n```',
  '- [ ] task\n- [x] done',
  '| a | b |\n|---|:-:|\n| <b class="c">1</b> | 2 |',
  '> quote <i id="q">i</i>',
  '# Heading <u style="x">u</u>',
  '`<div class="modal-backdrop">`',
  'text\n\n<div>\n\n**inside**\n\n</div>',
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('markdownHtml', () => {
  it('shows raw HTML, block and inline, as text', () => {
    const html = markdownHtml('<div class="modal-backdrop" id="x">Press 1</div>\n\nand <img src=x onerror=alert(1)> inline');
    expect(html).not.toMatch(/<div|<img/);
    expect(html).toContain('&lt;div class=&quot;modal-backdrop&quot; id=&quot;x&quot;&gt;Press 1&lt;/div&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('still renders Markdown, code blocks with their highlighting, and file links', () => {
    const html = markdownHtml('**bold** and [a](docs/a.md)\n\n```ts\nconst a = 1;\n```');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="docs/a.md">a</a>');
    expect(html).toMatch(/<div class="code-block"><div class="code-bar"><span class="code-lang">ts<\/span>/);
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(problems(html)).toEqual([]);
  });

  it('renders task lists as disabled checkboxes, ticked as written, each labelled', () => {
    const html = markdownHtml('- [x] write the test\n- [ ] fix it\n- plain item');
    expect(html).toContain('<li class="task-item"><input type="checkbox" class="task-check" disabled="" checked="" aria-label="Done"> write the test</li>');
    expect(html).toContain('<li class="task-item"><input type="checkbox" class="task-check" disabled="" aria-label="Not done"> fix it</li>');
    expect(html).toContain('<li>plain item</li>');
    expect(problems(html)).toEqual([]);
    // A loose task list (paragraphs in its items) too.
    expect(markdownHtml('- [x] one\n\n- [ ] two\n')).toMatch(/<li class="task-item"><p><input type="checkbox" class="task-check" disabled="" checked="" aria-label="Done"> ?one<\/p>/);
    // Raw HTML checkboxes stay text.
    expect(markdownHtml('<input type="checkbox" checked> x')).not.toContain('<input');
  });

  it('leaves the model no tag or attribute of its own choosing in generated hostile Markdown', () => {
    const random = rng(11);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    for (const text of HOSTILE) expect(problems(markdownHtml(text)), text).toEqual([]);
    for (let n = 0; n < 500; n++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick([...HOSTILE, '\n\n', '\n', ' ', '* ', '1. ', '> ']));
      const text = parts.join('');
      expect(problems(markdownHtml(text)), text).toEqual([]);
    }
  });
});

describe('appClasses', () => {
  it('keeps exactly the classes the app writes itself', () => {
    expect(appClasses('code-block')).toBe('code-block');
    expect(appClasses('hljs language-ts')).toBe('hljs language-ts');
    expect(appClasses('hljs-title function_')).toBe('hljs-title function_');
    expect(appClasses('path-link')).toBe('path-link');
    expect(appClasses('modal-backdrop approval-card btn btn-primary hljs-keyword dd-evil')).toBe('hljs-keyword');
    expect(appClasses('invisible-char markdown code-copy')).toBe('code-copy');
  });
});

describe('the structure Markdown gives the page', () => {
  it('puts an answer’s headings below the page’s own h1 (the thread’s title)', () => {
    const html = markdownHtml('# Title\n\n## Part\n\n###### Deepest\n');
    expect(html).toContain('<h2>Title</h2>');
    expect(html).toContain('<h3>Part</h3>');
    expect(html).toContain('<h6>Deepest</h6>');
    expect(html).not.toContain('<h1');
  });

  it('gives a code block a Tab stop, so a wide one scrolls by keyboard', () => {
    expect(markdownHtml('```\nx\n```\n')).toContain('<pre tabindex="0">');
  });
});

describe('a wide table', () => {
  it('takes a Tab stop, so the keyboard can scroll it sideways', () => {
    expect(markdownHtml('| a | b |\n| - | - |\n| 1 | 2 |\n')).toContain('<table tabindex="0">');
  });
});
