/** One word of a parsed command: its value, and whether the shell computes it when it runs (`$x`, `$(…)`). */
export interface ArgWord {
  value: string;
  dynamic: boolean;
}
