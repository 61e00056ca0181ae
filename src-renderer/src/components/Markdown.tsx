// Sanitised Markdown with highlighted code. Web links open outside the window; links and
// inline-code paths to files in the folder open them in the viewer; code blocks have a
// Copy button.

import { memo, useDeferredValue, useMemo } from 'react';
import { renderMarkdown, renderMarkdownBlock, splitMarkdownBlocks } from '../lib/markdown';
import { useOpenFile } from '../state/file-links';
import { copyText } from './CopyButton';

function activate(target: HTMLElement, openFile: (path: string) => void): boolean {
  const copy = target.closest<HTMLElement>('[data-copy-code]');
  if (copy) {
    const code = copy.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
    void copyText(code).then((ok) => {
      if (!ok) return;
      copy.textContent = 'Copied';
      setTimeout(() => (copy.textContent = 'Copy'), 1500);
    });
    return true;
  }
  const pathLink = target.closest<HTMLElement>('[data-path]');
  if (pathLink) {
    openFile(pathLink.dataset.path ?? '');
    return true;
  }
  const anchor = target.closest('a');
  if (!anchor) return false;
  const href = anchor.getAttribute('href') ?? '';
  if (/^https?:\/\//i.test(href) || /^mailto:/i.test(href)) window.open(href, '_blank', 'noopener,noreferrer');
  return true;
}

function useHandlers(): { onClick(e: React.MouseEvent<HTMLDivElement>): void; onKeyDown(e: React.KeyboardEvent<HTMLDivElement>): void } {
  const openFile = useOpenFile();
  return useMemo(
    () => ({
      onClick(e) {
        if (activate(e.target as HTMLElement, openFile)) e.preventDefault();
      },
      onKeyDown(e) {
        const target = e.target as HTMLElement;
        if ((e.key === 'Enter' || e.key === ' ') && target.matches('[data-copy-code], code[data-path]')) {
          e.preventDefault();
          activate(target, openFile);
        }
      },
    }),
    [openFile],
  );
}

interface MarkdownProps {
  text: string;
  className?: string;
  /** While the text streams in, it is rendered block by block so only the last block changes. */
  streaming?: boolean;
}

export const Markdown = memo(function Markdown({ text, className, streaming = false }: MarkdownProps): React.JSX.Element {
  // While text streams in, parsing can lag a frame behind rather than block typing.
  const deferred = useDeferredValue(text);
  const handlers = useHandlers();
  const classes = `markdown${className ? ` ${className}` : ''}`;
  const html = useMemo(() => (streaming ? null : renderMarkdown(deferred)), [deferred, streaming]);
  const blocks = useMemo(() => (streaming ? splitMarkdownBlocks(deferred) : []), [deferred, streaming]);
  if (html !== null) return <div className={classes} {...handlers} dangerouslySetInnerHTML={{ __html: html }} />;
  return (
    <div className={classes} {...handlers}>
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} block={block} />
      ))}
    </div>
  );
});

const MarkdownBlock = memo(function MarkdownBlock({ block }: { block: string }): React.JSX.Element {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderMarkdownBlock(block) }} />;
});
