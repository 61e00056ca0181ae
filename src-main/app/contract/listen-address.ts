// Where the Agent Protocol listens (SPEC §19): `[HOST:]PORT`, an IPv6 host in brackets, the
// host 127.0.0.1 when none is given. Only loopback unless the person allows other computers.
// Imports nothing: Settings (the window) checks what is typed with the same rules.

export interface ListenAddress {
  /** As it is bound: an IPv4 or IPv6 address (no brackets) or a name. */
  host: string;
  /** 0: any free port. */
  port: number;
  /** 127.0.0.0/8, ::1 or localhost: only this computer can connect. */
  loopback: boolean;
}

export const DEFAULT_LISTEN_HOST = '127.0.0.1';

/** `[HOST:]PORT` as an address, or what is wrong with it in words. */
export function parseListenAddress(text: string): ListenAddress | { error: string } {
  const spec = text.trim();
  const bad = (why: string): { error: string } => ({ error: `'${spec}' is not [HOST:]PORT: ${why}` });
  let hostText: string;
  let portText: string;
  if (spec.startsWith('[')) {
    const close = spec.indexOf(']');
    if (close === -1 || spec[close + 1] !== ':') return bad('an IPv6 address is written in brackets, then :PORT ([::1]:2024)');
    hostText = spec.slice(0, close + 1);
    portText = spec.slice(close + 2);
  } else {
    const colon = spec.lastIndexOf(':');
    if (spec.indexOf(':') !== colon) return bad('write an IPv6 address in brackets ([::1]:2024)');
    hostText = colon === -1 ? DEFAULT_LISTEN_HOST : spec.slice(0, colon);
    portText = colon === -1 ? spec : spec.slice(colon + 1);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return bad('the port is a number from 0 to 65535');
  const host = canonicalHost(hostText);
  if (host === undefined) return bad(`'${hostText}' is not an address or a host name`);
  return { host, port: Number(portText), loopback: isLoopback(host) };
}

/** Why `address` may not be listened on (a one-line message), or undefined when it may. */
export function listenRefusal(address: ListenAddress, allowRemote: boolean): string | undefined {
  if (address.loopback || allowRemote) return undefined;
  const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${shown} is not a loopback address (127.0.0.1, ::1, localhost): other computers could connect to it; add --allow-remote to allow that`;
}

/** The address as bound (`::1`, `127.0.0.1`, `example.lan`), or undefined when it is none. */
function canonicalHost(text: string): string | undefined {
  if (text === '' || /[\s/?#@\\%]/.test(text)) return undefined;
  let hostname: string;
  try {
    // The WHATWG URL parser canonicalises both address families (`[0::1]` → `[::1]`, `127.1` → `127.0.0.1`).
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname.startsWith('[')) return hostname.slice(1, -1);
  return /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(hostname) ? hostname : undefined;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  const v4 = /^(\d+)\.\d+\.\d+\.\d+$/.exec(host);
  if (v4 !== null) return v4[1] === '127';
  // An IPv4-mapped IPv6 loopback (`::ffff:127.0.0.1`, canonicalised to hex).
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/** What is wrong with a CORS origin as the person lists it (`scheme://host[:port]`, exactly as browsers send it), or undefined. */
export function corsOriginError(text: string): string | undefined {
  let origin: string | undefined;
  try {
    origin = new URL(text).origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin === 'null' || origin !== text) return `'${text}' is not an origin: write it as a browser sends it, scheme://host[:port] (http://localhost:3000)`;
  return undefined;
}
