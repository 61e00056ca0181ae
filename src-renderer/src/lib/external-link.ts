// Web links in model-written text: the text of a link can say one address and go to another,
// so the window shows where it really goes and asks before the first link to each host.

export interface ExternalLink {
  /** The address that will open (normalised: punycode host, so look-alike letters show). */
  href: string;
  /** What one confirmation covers: the host of a web link, the address of a mailto: link. */
  key: string;
  /** How the destination is named in the question. */
  destination: string;
}

/** The link to open for `href`, when it is one the window opens outside (http, https, mailto); else null. */
export function externalLink(href: string): ExternalLink | null {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username !== '' || url.password !== '') {
      // `https://trusted.example@evil.example/` names a host it does not go to: the credentials part is not opened.
      url.username = '';
      url.password = '';
    }
    return { href: url.href, key: `${url.protocol}//${url.host}`, destination: url.host };
  }
  if (url.protocol === 'mailto:') return { href: url.href, key: url.href, destination: decodeURIComponent(url.pathname) };
  return null;
}
