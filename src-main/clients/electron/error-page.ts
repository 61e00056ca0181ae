// The static page a window shows when the app cannot be shown (the page keeps crashing, the
// preload failed): the reason, and what to do. A data: URL with no script and no bridge: IPC
// trust refuses it, and nothing in it can run.

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function errorPageUrl(title: string, reason: string, advice: string): string {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:4rem auto;max-width:40rem;padding:0 1.5rem;color:#ddd;background:#1e1e1e}
h1{font-size:1.4rem}code{background:#333;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><main role="alert"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(reason)}</p><p>${escapeHtml(advice)}</p></main></body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}
