// Opens a URL in the person's browser where no host does it for us (`deepdesk serve`, the CLI).
import { allowedEnv, ENV_OPT_INS } from '../../core/process/child-env';
import { spawnPipe } from '../../core/process/spawn';

export function openWithSystem(url: string): Promise<void> {
  if (!/^https?:\/\//i.test(url)) return Promise.reject(new Error(`not a web address: ${url}`));
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = spawnPipe({ role: 'opener', file: command, args, env: allowedEnv(ENV_OPT_INS.opener), stdio: 'ignore', detached: true });
    child.once('error', (err) => reject(new Error(`could not open a browser (${err.message}); open ${url} yourself`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
