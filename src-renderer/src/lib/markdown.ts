// Markdown → sanitised HTML for assistant messages: marked for parsing, highlight.js for
// code blocks, DOMPurify over the result (model output is untrusted).

import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { escapeHtml, highlightCode } from './highlight';

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = lang?.trim().split(/\s+/)[0] ?? '';
      const label = language ? `<span class="code-lang">${escapeHtml(language)}</span>` : '';
      return `<div class="code-block">${label}<pre><code class="hljs${language ? ` language-${escapeHtml(language)}` : ''}">${highlightCode(text, language)}</code></pre></div>`;
    },
  },
});

let hooked = false;

function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
  }
  return DOMPurify;
}

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return purifier().sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
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
