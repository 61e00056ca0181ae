// Sanitised Markdown with highlighted code; links open outside the window.

import { memo, useDeferredValue, useMemo } from 'react';
import { renderMarkdown, renderMarkdownBlock, splitMarkdownBlocks } from '../lib/markdown';

function openLinksOutside(event: React.MouseEvent<HTMLDivElement>): void {
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor) return;
  event.preventDefault();
  const href = anchor.getAttribute('href') ?? '';
  if (/^https?:\/\//i.test(href) || /^mailto:/i.test(href)) window.open(href, '_blank', 'noopener,noreferrer');
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
  const classes = `markdown${className ? ` ${className}` : ''}`;
  const html = useMemo(() => (streaming ? null : renderMarkdown(deferred)), [deferred, streaming]);
  const blocks = useMemo(() => (streaming ? splitMarkdownBlocks(deferred) : []), [deferred, streaming]);
  if (html !== null) return <div className={classes} onClick={openLinksOutside} dangerouslySetInnerHTML={{ __html: html }} />;
  return (
    <div className={classes} onClick={openLinksOutside}>
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} block={block} />
      ))}
    </div>
  );
});

const MarkdownBlock = memo(function MarkdownBlock({ block }: { block: string }): React.JSX.Element {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderMarkdownBlock(block) }} />;
});
