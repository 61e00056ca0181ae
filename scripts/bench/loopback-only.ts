// Benchmarks talk to servers on this machine only. A library that reaches for the network
// on its own (e.g. to download tokenizer data) fails at once instead of retrying a DNS
// lookup for minutes and skewing the timings.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function restrictFetchToLoopback(): void {
  const original = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (!LOOPBACK.has(url.hostname)) return Promise.reject(new Error(`benchmark: refused a request to ${url.host} (loopback only)`));
    return original(input, init);
  };
}
