/** One word of a parsed command; `dynamic`: its value is only known at run time (an expansion, an unquoted glob, brace or tilde). */
export interface ArgWord {
  value: string;
  dynamic: boolean;
}
