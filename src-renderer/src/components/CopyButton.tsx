// Copies text to the clipboard and says so for a moment.

import { useEffect, useState } from 'react';
import { Icon } from './Icon';

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (e.g. an http page): fall back to a selection copy.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function CopyButton({ text, label, className }: { text: string | (() => string); label: string; className?: string }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className={`icon-btn copy-btn${className ? ` ${className}` : ''}`}
      aria-label={label}
      title={copied ? 'Copied' : label}
      onClick={() => void copyText(typeof text === 'function' ? text() : text).then(setCopied)}
    >
      <Icon name={copied ? 'check' : 'copy'} size={13} />
      <span className="visually-hidden" role="status">{copied ? 'Copied' : ''}</span>
    </button>
  );
}
