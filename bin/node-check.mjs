// The Node.js the CLI needs. The bundle's native modules (SQLite, the pty) are built for the
// Node 22 that `npm install` puts in node_modules (the `node` devDependency), which
// `npx deepdesk` and every npm script run on; an older Node on the system only runs npm.
export const NEEDED = [22, 12];

/** Why this Node cannot run the CLI (one line), or null when it can. */
export function nodeProblem(version) {
  const [major = 0, minor = 0] = String(version).replace(/^v/, '').split('.').map(Number);
  if (major > NEEDED[0] || (major === NEEDED[0] && minor >= NEEDED[1])) return null;
  return (
    `deepdesk: needs Node.js ${NEEDED.join('.')} or later, and this is Node.js ${String(version).replace(/^v/, '')}. ` +
    'Run it as `npx deepdesk` in the deepdesk folder (it uses the Node 22 that `npm install` put there), or install Node.js 22.'
  );
}
