import { describe, expect, it } from 'vitest';
import { listenRefusal, parseListenAddress } from './listen-address';

describe('parseListenAddress', () => {
  it('takes PORT alone as 127.0.0.1:PORT', () => {
    expect(parseListenAddress('2024')).toEqual({ host: '127.0.0.1', port: 2024, loopback: true });
    expect(parseListenAddress('0')).toEqual({ host: '127.0.0.1', port: 0, loopback: true });
  });

  it('reads HOST:PORT and [IPv6]:PORT', () => {
    expect(parseListenAddress('127.0.0.5:80')).toEqual({ host: '127.0.0.5', port: 80, loopback: true });
    expect(parseListenAddress('localhost:8123')).toEqual({ host: 'localhost', port: 8123, loopback: true });
    expect(parseListenAddress('[::1]:2024')).toEqual({ host: '::1', port: 2024, loopback: true });
    expect(parseListenAddress('[0:0:0:0:0:0:0:1]:2024')).toEqual({ host: '::1', port: 2024, loopback: true });
    expect(parseListenAddress('0.0.0.0:2024')).toEqual({ host: '0.0.0.0', port: 2024, loopback: false });
    expect(parseListenAddress('[::]:2024')).toEqual({ host: '::', port: 2024, loopback: false });
    expect(parseListenAddress('192.168.1.4:2024')).toEqual({ host: '192.168.1.4', port: 2024, loopback: false });
    expect(parseListenAddress('box.lan:2024')).toEqual({ host: 'box.lan', port: 2024, loopback: false });
    expect(parseListenAddress('[::ffff:127.0.0.1]:1')).toMatchObject({ loopback: true });
  });

  it('refuses what is not [HOST:]PORT, saying so', () => {
    for (const bad of ['', 'abc', '::1:2024', '[::1]2024', '127.0.0.1:', '127.0.0.1:65536', '127.0.0.1:-1', 'a b:1', 'x/y:1', '[zz]:1', '300.1.1.1:1']) {
      const parsed = parseListenAddress(bad);
      expect(parsed, bad).toHaveProperty('error');
      expect((parsed as { error: string }).error).toMatch(/is not \[HOST:\]PORT/);
    }
  });
});

describe('listenRefusal', () => {
  const at = (text: string) => parseListenAddress(text) as Exclude<ReturnType<typeof parseListenAddress>, { error: string }>;

  it('allows loopback, and anything else only with --allow-remote', () => {
    expect(listenRefusal(at('127.0.0.1:0'), false)).toBeUndefined();
    expect(listenRefusal(at('[::1]:0'), false)).toBeUndefined();
    expect(listenRefusal(at('0.0.0.0:0'), true)).toBeUndefined();
    const refusal = listenRefusal(at('0.0.0.0:0'), false);
    expect(refusal).toMatch(/0\.0\.0\.0 is not a loopback address.*--allow-remote/);
    expect(refusal).not.toContain('\n');
    expect(listenRefusal(at('[::]:0'), false)).toMatch(/^\[::\] is not a loopback/);
  });
});
