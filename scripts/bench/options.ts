// Command-line options of `npm run bench`.

export const SUITES = ['core', 'harness', 'window', 'chat', 'sandbox', 'checkpoints', 'folders', 'memories', 'threads', 'media', 'remote', 'git-mount', 'shared-memories', 'usage', 'host', 'parallel', 'worktrees', 'provenance', 'budget', 'protocol', 'sandboxes', 'goals', 'agents', 'candidates', 'review', 'warm-run', 'get-state', 'run-step', 'answers', 'markdown', 'idle', 'long-window', 'host-memory'] as const;
export type Suite = (typeof SUITES)[number];

export interface BenchOptions {
  /** Rebuild the generated data under .bench/data even when it is there. */
  regenerate: boolean;
  /** Timed runs per measurement (the median is reported). */
  runs: number;
  suites: Set<Suite>;
}

export const USAGE = `Usage: npm run bench -- [--regenerate] [--runs N] [--only core,harness,window,chat,sandbox,checkpoints,folders,memories,threads,media,remote,git-mount,shared-memories,usage,host,parallel,worktrees,provenance,budget,protocol,sandboxes,goals,agents,candidates,review,warm-run,get-state,run-step,answers,markdown,idle,long-window,host-memory]

  --regenerate   rebuild the generated tree, the 1 GB file, the 50 MB file and the memory databases in .bench/data
  --runs N       timed runs per measurement, median reported (default 5; slow ones stop early)
  --only LIST    run only these suites (core: issue 2, harness: issue 3, window: issue 4,
                 chat: only the window's chat streaming rows (part of window),
                 sandbox: issue 11, issue 18's MCP server start and issue 82's step through run,
                 checkpoints: issue 12,
                 folders: issue 13's big folders,
                 memories: issue 17's Memories page at 1k/20k/100k memories,
                 threads: issue 17's long threads,
                 media: issue 20's read_file of a PDF and a PPTX, issue 37's crafted PDFs,
                 remote: issue 21's read_file and grep over SSH to 127.0.0.1,
                 git-mount: issue 22's write+push round trip and grep over a 10k-file git mount,
                 shared-memories: issue 22's PostgreSQL memories store beside the SQLite one at 10k memories,
                 usage: issue 41's usage ledger and trace exporters per model call,
                 host: issue 39's agent host: run "hi" cold and warm, a window's attach, an extra client;
                 and issue 98's lighter host (host-memory),
                 parallel: issue 40's 1, 4 and 8 threads at once: a step's cost, the window's longest frame,
                 worktrees: issue 40's worktree creation and Apply to folder beside git on a 20k-file repository,
                 provenance: issue 81's git-ai note of a 1,000-line commit beside git notes add,
                 budget: issue 55's first request in tokens beside deepagents', with AGENTS.md and a skill,
                 with 5 MCP servers; runs the build in out/,
                 protocol: issue 54's Agent Protocol: a run's first token over it beside the local
                 socket, a 10k-message thread's getState beside a window's threads.get; runs out/),
                 sandboxes: issue 53's tool call over a provider (Daytona stand-in) beside its SDK
                 alone, upload of a 2,000-file folder, bring-back of a 100-file change),
                 goals: issue 63's gate: wall time and tokens per evaluation beside the turn it checks;
                 runs out/),
                 agents: issue 65's other agents: a turn's first token through run --agent beside the
                 agent driven directly, and the metering proxy's added latency per call; runs out/,
                 candidates: issue 64's run --candidates 3: three worktrees ready beside three git
                 worktree add, the set beside three independent runs; runs out/,
                 review: issue 80's coverage: the project's hostile and benign actions in auto mode with
                 a reviewer that allows everything: stopped without a model, gated, ungated,
                 warm-run: only issue 66's warm deepdesk run "hi" beside its floors (part of host),
                 get-state: only issue 66's getState of a 10k-message thread beside its floor (part of protocol),
                 run-step: only issue 82's sandboxed execute step through deepdesk run in a 20-file and a
                 100k-file git repository, over an ls step, beside bare sh and bwrap (part of sandbox; runs out/),
                 answers: only issue 82's app.info every 2 s while pathological Markdown renders in the window,
                 beside the idle window (part of window; runs out/),
                 markdown: only issues 79 and 82's longest main-thread task of the page while each pathological
                 Markdown answer and file is shown, beside an ordinary short answer (part of window; runs out/),
                 idle: only issue 82's window on 20 finished threads idle 60 s: CPU of serve, its host and the
                 page, and the page's timers, beside 1 thread (part of window; runs out/),
                 long-window: only issue 82's 10,000-message thread opened 10 times in the window: the open,
                 its longest frame, the page's heap (part of window; runs out/),
                 host-memory: only issue 98's agent host idle with 20 finished threads: its resident memory,
                 and a command's pty.spawn in it beside a small Node's (part of host; runs out/))
`;

export function parseOptions(argv: string[]): BenchOptions | 'help' {
  const options: BenchOptions = { regenerate: false, runs: 5, suites: new Set(SUITES) };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--regenerate':
        options.regenerate = true;
        break;
      case '--runs': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1) throw new Error('--runs must be a positive whole number');
        options.runs = n;
        break;
      }
      case '--only': {
        const names = value().split(',').map((s) => s.trim()).filter(Boolean);
        for (const n of names) if (!(SUITES as readonly string[]).includes(n)) throw new Error(`unknown suite '${n}' (known: ${SUITES.join(', ')})`);
        options.suites = new Set(names as Suite[]);
        break;
      }
      case '--help':
      case '-h':
        return 'help';
      default:
        throw new Error(`unknown option '${arg}'`);
    }
  }
  return options;
}
