// Markdown → sanitised HTML for everything the model can reach (answers, summaries, the
// file viewer, memories): marked for parsing, highlight.js for code blocks, DOMPurify over
// the result (model output is untrusted). Raw HTML in the Markdown is shown as text, never
// as markup, and no element keeps a class, id or style of the model's choosing: only the
// classes the app writes itself (code blocks, highlighting, file links) survive. Text the
// person decides on (an approval's reason, its "always allow" label) is never Markdown at
// all: the approval card shows it as plain text.

import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { escapeHtml, highlightCode } from './highlight';

/** A language name fit for a class (`ts`, `c++`, `objective-c`); anything else is not one. */
const LANGUAGE = /^[\w+#.-]{1,40}$/;

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML, block or inline, is shown as the text it is.
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text.trim())}</p>\n` : escapeHtml(text);
    },
    code({ text, lang }) {
      const word = lang?.trim().split(/\s+/)[0] ?? '';
      const language = LANGUAGE.test(word) ? word : '';
      // The language and the copy button sit in a bar above the code, never over it.
      const label = `<span class="code-lang">${escapeHtml(language)}</span>`;
      const copy = '<span class="code-copy" role="button" tabindex="0" aria-label="Copy code" data-copy-code="">Copy</span>';
      return `<div class="code-block"><div class="code-bar">${label}${copy}</div><pre><code class="hljs${language ? ` language-${escapeHtml(language)}` : ''}">${highlightCode(text, language)}</code></pre></div>`;
    },
  },
});

let hooked = false;

function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    // Only the app's own classes: an element whose classes are all someone else's loses the attribute.
    DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
      if (data.attrName !== 'class') return;
      data.attrValue = appClasses(data.attrValue);
      if (data.attrValue === '') data.keepAttr = false;
    });
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
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
const APP_CLASSES = new Set(['code-block', 'code-bar', 'code-lang', 'code-copy', 'hljs', 'path-link']);
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

export function renderMarkdown(text: string): string {
  return purifier().sanitize(markdownHtml(text), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'id'],
  });
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

const blockCache = new Map<string, string>();
const BLOCK_CACHE_SIZE = 400;

/** renderMarkdown for one finished block, remembered (finished blocks never change). */
export function renderMarkdownBlock(block: string): string {
  const hit = blockCache.get(block);
  if (hit !== undefined) return hit;
  const html = renderMarkdown(block);
  if (blockCache.size >= BLOCK_CACHE_SIZE) blockCache.delete(blockCache.keys().next().value!);
  blockCache.set(block, html);
  return html;
}
