// Sanitised Markdown with highlighted code; links open outside the window.

import { memo, useDeferredValue, useMemo } from 'react';
import { renderMarkdown } from '../lib/markdown';

function openLinksOutside(event: React.MouseEvent<HTMLDivElement>): void {
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor) return;
  event.preventDefault();
  const href = anchor.getAttribute('href') ?? '';
  if (/^https?:\/\//i.test(href) || /^mailto:/i.test(href)) window.open(href, '_blank', 'noopener,noreferrer');
}

export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }): React.JSX.Element {
  // While text streams in, parsing can lag a frame behind rather than block typing.
  const deferred = useDeferredValue(text);
  const html = useMemo(() => renderMarkdown(deferred), [deferred]);
  return <div className={`markdown${className ? ` ${className}` : ''}`} onClick={openLinksOutside} dangerouslySetInnerHTML={{ __html: html }} />;
});
