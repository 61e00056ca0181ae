/** The Node.js version the CLI needs: [major, minor]. */
export const NEEDED: readonly [number, number];
/** Why this Node cannot run the CLI (one line), or null when it can. */
export function nodeProblem(version: string): string | null;
