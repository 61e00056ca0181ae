import { describe, expect, it } from 'vitest';
import { externalLink } from './external-link';

describe('external links', () => {
  it('keys web links by scheme and host, so one confirmation covers a host', () => {
    expect(externalLink('https://docs.example.com/a?b=1#c')).toEqual({ href: 'https://docs.example.com/a?b=1#c', key: 'https://docs.example.com', destination: 'docs.example.com' });
    expect(externalLink('https://docs.example.com/other')?.key).toBe('https://docs.example.com');
    expect(externalLink('http://docs.example.com/')?.key).not.toBe(externalLink('https://docs.example.com/')?.key);
    expect(externalLink('https://docs.example.com:8443/')?.key).toBe('https://docs.example.com:8443');
  });

  it('shows look-alike hosts in punycode and drops a user@ part that names another host', () => {
    expect(externalLink('https://раураl.com/login')?.destination).toMatch(/^xn--/);
    expect(externalLink('https://github.com@evil.example/x')).toMatchObject({ href: 'https://evil.example/x', destination: 'evil.example' });
  });

  it('opens nothing that is not http(s) or mailto', () => {
    for (const href of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'app://deepdesk/index.html', 'vbscript:x', 'not a url', '']) {
      expect(externalLink(href), href).toBeNull();
    }
    expect(externalLink('mailto:ann@example.com')).toMatchObject({ key: 'mailto:ann@example.com', destination: 'ann@example.com' });
  });
});
