// Markdown → sanitised HTML for everything the model can reach (answers, summaries, the
// file viewer, memories): marked for parsing, highlight.js for code blocks, DOMPurify over
// the result (model output is untrusted). Raw HTML in the Markdown is shown as text, never
// as markup, and no element keeps a class, id or style of the model's choosing: only the
// classes the app writes itself (code blocks, highlighting, file links) survive. Text the
// person decides on (an approval's reason, its "always allow" label) is never Markdown at
// all: the approval card shows it as plain text. What rendering may cost the page is bounded
// in markdown-render.ts: small texts use renderMarkdown here; larger ones are parsed by
// markdownChunks in a worker (markdown.worker.ts) and sanitised by sanitizeMarkdownHtml in
// the page, in parts.

import DOMPurify from 'dompurify';
import { Marked, Renderer, type Tokens } from 'marked';
import { escapeHtml, highlightCode } from './highlight';

/** A language name fit for a class (`ts`, `c++`, `objective-c`); anything else is not one. */
const LANGUAGE = /^[\w+#.-]{1,40}$/;

const plain = new Renderer();

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML, block or inline, is shown as the text it is.
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text.trim())}</p>\n` : escapeHtml(text);
    },
    code({ text, lang }) {
      return codeBlockHtml(text, lang, true);
    },
    // A wide table scrolls sideways in its box: a Tab stop lets the keyboard scroll it too.
    table(token) {
      return plain.table.call(this, token).replace('<table>', '<table tabindex="0">');
    },
    // One level down: the page's own heading (the thread's title, the file's name) is the h1.
    heading({ tokens, depth }) {
      const level = Math.min(depth + 1, 6);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    // A task list item (`- [x] done`): a checkbox the person sees, not one they can tick.
    checkbox({ checked }) {
      return `<input type="checkbox" class="task-check" disabled=""${checked ? ' checked=""' : ''} aria-label="${checked ? 'Done' : 'Not done'}"> `;
    },
    listitem(item) {
      if (!item.task) return false;
      return `<li class="task-item">${this.parser.parse(item.tokens)}</li>\n`;
    },
  },
});

/**
 * A fenced or indented code block: the language and the copy button in a bar above the code,
 * never over it; the code takes a Tab stop so that a wide block scrolls by keyboard too.
 */
function codeBlockHtml(text: string, lang: string | undefined, highlight: boolean): string {
  const word = lang?.trim().split(/\s+/)[0] ?? '';
  const language = LANGUAGE.test(word) ? word : '';
  const label = `<span class="code-lang">${escapeHtml(language)}</span>`;
  const copy = '<span class="code-copy" role="button" tabindex="0" aria-label="Copy code" data-copy-code="">Copy</span>';
  const code = highlight ? highlightCode(text, language) : escapeHtml(text);
  return `<div class="code-block"><div class="code-bar">${label}${copy}</div><pre tabindex="0"><code class="hljs${language ? ` language-${escapeHtml(language)}` : ''}">${code}</code></pre></div>`;
}

let hooked = false;

function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    // Only the app's own classes: an element whose classes are all someone else's loses the attribute.
    // The only inputs are the task lists' checkboxes (raw HTML never gets here as markup): shown, never ticked.
    DOMPurify.addHook('uponSanitizeElement', (node, data) => {
      if (data.tagName !== 'input') return;
      const input = node as Element;
      if (input.getAttribute('type') !== 'checkbox') input.parentNode?.removeChild(input);
    });
    DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
      if (data.attrName !== 'class') return;
      data.attrValue = appClasses(data.attrValue);
      if (data.attrValue === '') data.keepAttr = false;
    });
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'INPUT') {
        node.setAttribute('disabled', '');
        node.setAttribute('class', 'task-check');
      }
      if (node.tagName === 'A') {
        const href = node.getAttribute('href') ?? '';
        const path = folderPathOfHref(href);
        if (path !== null) {
          node.setAttribute('data-path', path);
          node.setAttribute('title', `Open ${path}`);
        } else {
          node.setAttribute('target', '_blank');
          node.setAttribute('rel', 'noopener noreferrer');
        }
      }
      // Inline code that names a file becomes a link to it.
      if (node.tagName === 'CODE' && node.parentElement?.tagName !== 'PRE' && node.childElementCount === 0) {
        const path = pathInText(node.textContent ?? '');
        if (path !== null) {
          node.setAttribute('data-path', path);
          node.setAttribute('role', 'link');
          node.setAttribute('tabindex', '0');
          node.setAttribute('title', `Open ${path}`);
          node.setAttribute('class', 'path-link');
        }
      }
    });
  }
  return DOMPurify;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i;

/** The folder path a Markdown link points to (`docs/a.md`, `./a.md#x`, `/a.md`), or null for web links and anchors. */
export function folderPathOfHref(href: string): string | null {
  const trimmed = href.trim();
  if (trimmed === '' || EXTERNAL.test(trimmed)) return null;
  let path = trimmed.replace(/[?#].*$/, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep it as written.
  }
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.length > 0 ? `/${parts.join('/')}` : null;
}

const PATH_TEXT = /^(?:\.{1,2}\/|\/)?(?:[\w@.+-]+\/)*[\w@+-][\w@.+-]*$/;

/** A path written in text (`src/a.ts`, `/README.md`, `package.json`), as a folder path; else null. */
export function pathInText(text: string): string | null {
  const t = text.trim().replace(/:\d+(?::\d+)?$/, '');
  if (t.length < 3 || t.length > 300 || !PATH_TEXT.test(t)) return null;
  const hasDir = t.includes('/');
  const hasExtension = /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(t);
  if (!hasDir && !hasExtension) return null;
  if (/^\d/.test(t) && !hasDir) return null;
  return folderPathOfHref(t);
}

/** Classes the app writes into rendered Markdown itself (highlight.js scopes included). */
const APP_CLASSES = new Set(['code-block', 'code-bar', 'code-lang', 'code-copy', 'hljs', 'path-link', 'task-item', 'task-check']);
const APP_CLASS_PATTERNS = [/^hljs-[a-z][\w-]*$/, /^[a-z]+_+$/, /^language-[\w+#.-]{1,40}$/];

/** The classes in `value` that the app itself gives rendered Markdown, space-separated; the rest dropped. */
export function appClasses(value: string): string {
  return value
    .split(/\s+/)
    .filter((c) => APP_CLASSES.has(c) || APP_CLASS_PATTERNS.some((p) => p.test(c)))
    .join(' ');
}

/** Markdown → HTML before sanitising: raw HTML escaped, code blocks highlighted. */
export function markdownHtml(text: string): string {
  return marked.parse(text, { async: false });
}

/** DOMPurify over HTML that markdownHtml or markdownChunks produced (in the page: it needs a DOM). */
export function sanitizeMarkdownHtml(html: string): string {
  return purifier().sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'button', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'id'],
  });
}

export function renderMarkdown(text: string): string {
  return sanitizeMarkdownHtml(markdownHtml(text));
}

/**
 * One part of a rendering made in parts: whole top-level blocks, their source and their HTML
 * before sanitising. Without `html` the part is shown as its source, as plain text.
 */
export interface MarkdownChunk {
  source: string;
  html?: string;
}

/** The HTML a part gathers before the next one starts, so the page sanitises and inserts it in bounded steps. */
export const CHUNK_HTML_CHARS = 32_000;
/** A single block whose HTML is longer than this is shown as plain text (a code block first loses its highlighting). */
export const BLOCK_HTML_MAX = 128_000;

/**
 * markdownHtml in parts (the worker's half of a large rendering): the text is lexed once, as a
 * whole (so link definitions and loose lists mean what they do in markdownHtml), and each
 * top-level block is rendered on its own; the parts' HTML joined is markdownHtml's.
 */
export function markdownChunks(text: string): MarkdownChunk[] {
  const chunks: MarkdownChunk[] = [];
  let source = '';
  let html = '';
  const flush = (): void => {
    if (source !== '' || html !== '') chunks.push({ source, html });
    source = '';
    html = '';
  };
  for (const token of marked.lexer(text)) {
    let part = marked.parser([token]);
    if (part.length > BLOCK_HTML_MAX && token.type === 'code') part = codeBlockHtml((token as Tokens.Code).text, (token as Tokens.Code).lang, false);
    if (part.length > BLOCK_HTML_MAX) {
      flush();
      chunks.push({ source: token.raw });
      continue;
    }
    if (html !== '' && html.length + part.length > CHUNK_HTML_CHARS) flush();
    source += token.raw;
    html += part;
  }
  flush();
  return chunks;
}

/** Two renderings' HTML, the same but for the line breaks between top-level elements (one has them, the other not). */
export function sameHtml(a: string, b: string): boolean {
  const tight = (html: string): string => html.replace(/>\s+</g, '><').trim();
  return tight(a) === tight(b);
}

/** What markdownChunks makes of `text`, joined; null when a part of it would be shown as plain text. */
function chunksHtml(text: string): string | null {
  let html = '';
  for (const chunk of markdownChunks(text)) {
    if (chunk.html === undefined) return null;
    html += chunk.html;
  }
  return html;
}

/**
 * blocksAgree before sanitising: the page sanitises each block's HTML as it shows it, and
 * the same HTML sanitises the same (the parts are whole top-level elements), so the whole
 * need not be sanitised in the page to know it would show nothing else.
 */
export function chunksAgree(text: string, blocks: readonly string[]): boolean {
  const whole = chunksHtml(text);
  if (whole === null) return false;
  let joined = '';
  for (const block of blocks) {
    const html = chunksHtml(block);
    if (html === null) return false;
    joined += html;
  }
  return sameHtml(whole, joined);
}

/**
 * Splits Markdown into top-level blocks at blank lines outside fenced code, so a message
 * that is still streaming re-renders only its last block. (Constructs that span blank
 * lines, such as loose lists, may render as separate blocks until the message completes.)
 */
export function splitMarkdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === null) fence = marker[0]!.repeat(marker.length);
      else if (marker.startsWith(fence)) fence = null;
    }
    if (fence === null && line.trim() === '' && current.length > 0) {
      blocks.push(current.join('\n'));
      current = [];
      continue;
    }
    current.push(line);
  }
  if (current.length > 0) blocks.push(current.join('\n'));
  return blocks;
}
