// §3's conformance cases and Deep Agents' sandbox standard cases over the Deno adapter and its
// official SDK against the local stand-in (standin-suites.ts). No test contacts Deno.

import { createDenoProvider } from '../../../sandbox-providers/deno/deno-provider';
import { startDenoStandin } from '../../../sandbox-providers/testing/deno-standin';
import { describeStandinSuites } from './standin-suites.test-support';

describeStandinSuites({
  label: 'Deno',
  start: startDenoStandin,
  adapter: createDenoProvider,
});
