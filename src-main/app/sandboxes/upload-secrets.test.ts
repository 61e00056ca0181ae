// What goes up to a provider (SPEC §7, §18): the person's secrets stay behind by CLASS — dotenv
// files of any name, private keys by format and by content, cloud and package-manager
// credentials — checked by effect: what the sandbox received.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalBoxProvider } from '../../core/sandbox-providers/testing/local-box-provider';
import { planUpload, uploadFolder, uploadSummary } from './folder-upload';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

// Headers are built, not written out, so that this file is not itself a key file by content.
const BEGIN = (what: string): string => `-----BEGIN ${what}-----`;
const END = (what: string): string => `-----END ${what}-----`;
const pem = (what: string): string => `${BEGIN(what)}\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n${END(what)}\n`;

/** Real credential files' names (and contents where the content is what makes them one): none may go up. */
export const CREDENTIAL_CORPUS: ReadonlyArray<{ rel: string; content?: string; why: string }> = [
  { rel: '.env', content: 'API_KEY=sk-live-1\n', why: 'a dotenv file' },
  { rel: '.env.local', content: 'A=1\n', why: 'a dotenv file' },
  { rel: '.env.production', content: 'A=1\n', why: 'a dotenv file' },
  { rel: 'config/.env.development.local', content: 'A=1\n', why: 'a dotenv file' },
  { rel: 'production.env', content: 'DB_PASSWORD=x\n', why: 'a dotenv file' },
  { rel: 'deploy/staging.env', content: 'A=1\n', why: 'a dotenv file' },
  { rel: '.envrc', content: 'export AWS_SECRET_ACCESS_KEY=x\n', why: 'a dotenv file' },
  { rel: 'env.local', content: 'A=1\n', why: 'a dotenv file' },
  { rel: 'keys/id_rsa', content: pem('OPENSSH PRIVATE KEY'), why: 'a private key' },
  { rel: 'keys/id_rsa_work', content: 'binary', why: 'a private key' },
  { rel: 'keys/id_ed25519', content: pem('OPENSSH PRIVATE KEY'), why: 'a private key' },
  { rel: 'keys/id_ecdsa_sk', content: 'x', why: 'a private key' },
  { rel: 'certs/server.key', content: pem('RSA PRIVATE KEY'), why: 'a private key' },
  { rel: 'certs/tls.pem', content: `${pem('CERTIFICATE')}${pem('PRIVATE KEY')}`, why: 'a private key' },
  { rel: 'certs/AuthKey_ABC123.p8', content: pem('PRIVATE KEY'), why: 'a private key' },
  { rel: 'certs/client.p12', content: '\x30\x82\x0a', why: 'a private key' },
  { rel: 'certs/store.pfx', content: '\x30\x82', why: 'a private key' },
  { rel: 'putty/server.ppk', content: 'PuTTY-User-Key-File-3: ssh-ed25519\n', why: 'a private key' },
  { rel: 'android/release.jks', content: '\xfe\xed\xfe\xed', why: 'a private key' },
  { rel: 'android/upload.keystore', content: '\xfe\xed', why: 'a private key' },
  { rel: 'gpg/secret.asc', content: `${BEGIN('PGP PRIVATE KEY BLOCK')}\n\nlQOYBF\n${END('PGP PRIVATE KEY BLOCK')}\n`, why: 'a private key' },
  { rel: 'gpg/secring.gpg', content: '\x95\x03', why: 'a private key' },
  // Held back by content, whatever the name.
  { rel: 'notes/backup.txt', content: `the deploy key:\n${pem('EC PRIVATE KEY')}`, why: 'a private key' },
  { rel: 'misc/key-copy', content: pem('ENCRYPTED PRIVATE KEY'), why: 'a private key' },
  { rel: 'misc/putty-export', content: 'PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n', why: 'a private key' },
  { rel: 'deploy/.aws/credentials', content: '[default]\naws_access_key_id=AKIA\n', why: 'cloud credentials' },
  { rel: 'ci/aws-creds.ini', content: '[default]\naws_secret_access_key = abc\n', why: 'cloud credentials' },
  { rel: 'gcp/my-project-1234-abcdef.json', content: `{"type": "service_account", "private_key": "${BEGIN('PRIVATE KEY')}\\nMII\\n"}`, why: 'a private key' },
  { rel: 'gcp/application_default_credentials.json', content: '{"client_id":"x","client_secret":"y","refresh_token":"z","type":"authorized_user"}', why: 'cloud credentials' },
  { rel: 'gcp/adc-copy.json', content: '{"client_secret":"y","refresh_token":"z"}', why: 'cloud credentials' },
  { rel: 'credentials.json', content: '{}', why: 'cloud credentials' },
  { rel: 'oauth/client_secret_123.apps.googleusercontent.com.json', content: '{}', why: 'cloud credentials' },
  { rel: 'k8s/.kube/config', content: 'apiVersion: v1\n', why: 'cluster credentials' },
  { rel: 'k8s/kubeconfig', content: 'apiVersion: v1\n', why: 'cloud credentials' },
  { rel: 'home/.docker/config.json', content: '{"auths":{}}', why: 'registry credentials' },
  { rel: '.npmrc', content: '//registry.npmjs.org/:_authToken=npm_abc\n', why: 'package registry credentials' },
  { rel: 'pkg/npmrc.ci', content: '//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n', why: 'package registry credentials' },
  { rel: '.yarnrc.yml', content: 'npmAuthToken: abc\n', why: 'package registry credentials' },
  { rel: '.pypirc', content: '[pypi]\npassword = x\n', why: 'package registry credentials' },
  { rel: 'rust/.cargo/credentials.toml', content: '[registry]\ntoken = "x"\n', why: 'package registry credentials' },
  { rel: '.netrc', content: 'machine github.com login x password y\n', why: 'login credentials' },
  { rel: '.git-credentials', content: 'https://x:y@github.com\n', why: 'git credentials' },
  { rel: 'db/.pgpass', content: 'localhost:5432:*:u:p\n', why: 'database passwords' },
  { rel: 'vault/passwords.kdbx', content: '\x03\xd9\xa2\x9a', why: 'passwords' },
];

/** Ordinary files that look a little like secrets: all go up. A public key or certificate may go up. */
const ORDINARY: ReadonlyArray<{ rel: string; content: string }> = [
  { rel: 'src/env.ts', content: 'export const env = process.env;\n' },
  { rel: 'docs/environment.md', content: '# Environment\nSet API_KEY in .env\n' },
  { rel: 'src/keys.py', content: 'KEYS = ["a", "b"]\n' },
  { rel: 'certs/public.pem', content: pem('PUBLIC KEY') },
  { rel: 'certs/ca.crt', content: pem('CERTIFICATE') },
  { rel: 'keys/id_ed25519.pub', content: 'ssh-ed25519 AAAAC3Nza test@host\n' },
  { rel: 'gpg/release-signing.asc', content: `${BEGIN('PGP PUBLIC KEY BLOCK')}\n\nmQINBF\n${END('PGP PUBLIC KEY BLOCK')}\n` },
  { rel: '.env.example', content: 'API_KEY=\n' },
  { rel: 'src/credentials.ts', content: 'export function credentials() {}\n' },
  { rel: 'src/private-key-loader.ts', content: 'export const load = () => 1;\n' },
  { rel: 'README.md', content: '# readme\n' },
];

function repoWith(files: ReadonlyArray<{ rel: string; content?: string }>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dd-secrets-')));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f.rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, f.rel), Buffer.from(f.content ?? 'x', 'latin1'));
  }
  return dir;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dd-data-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('secrets stay behind by class', () => {
  it('sends none of a corpus of real credential files, and every ordinary file; the first line says what stayed behind and why', async () => {
    expect(CREDENTIAL_CORPUS.length).toBeGreaterThanOrEqual(30);
    const folder = repoWith([...CREDENTIAL_CORPUS, ...ORDINARY]);
    const plan = await planUpload(folder, { dataDir, env: process.env });
    const provider = new LocalBoxProvider();
    cleanup.push(() => provider.dispose());
    const sandbox = await provider.create({ labels: {} });
    await uploadFolder(sandbox, folder, plan);
    // By effect: what the sandbox received.
    const listed = await sandbox.execute('find . -type f | sort', { timeoutMs: 10_000 });
    const received = listed.output.split('\n').filter((l) => l.startsWith('./')).map((l) => l.slice(2));
    const leaked = CREDENTIAL_CORPUS.map((c) => c.rel).filter((rel) => received.includes(rel));
    expect(leaked).toEqual([]);
    expect(received.sort()).toEqual(ORDINARY.map((o) => o.rel).sort());
    // Each stayed behind for its class.
    const why = Object.fromEntries(plan.leftOut.map((l) => [l.rel, l.why]));
    for (const c of CREDENTIAL_CORPUS) expect([c.rel, why[c.rel]]).toEqual([c.rel, c.why]);
    const line = uploadSummary(plan, 'the Daytona sandbox x');
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/; left out: \.cargo|; left out: \S+ \((a dotenv file|a private key|[a-z ]*credentials|[a-z ]*passwords)\)/);
    expect(line).toMatch(/and \d+ more \((?:[a-z ]+: \d+(?:, )?)+\)\. To leave more out, /);
    expect(line).toContain('a dotenv file: ');
    expect(line).toContain('a private key: ');
  });

  it('checks the bytes that go up again: a file that became a key after the plan stays behind', async () => {
    const folder = repoWith([{ rel: 'notes.txt', content: 'plain\n' }]);
    const plan = await planUpload(folder, { dataDir, env: process.env });
    fs.writeFileSync(path.join(folder, 'notes.txt'), pem('RSA PRIVATE KEY'));
    const provider = new LocalBoxProvider();
    cleanup.push(() => provider.dispose());
    const sandbox = await provider.create({ labels: {} });
    const manifest = await uploadFolder(sandbox, folder, plan);
    const r = await sandbox.execute('test -e notes.txt && echo SENT || echo KEPT', { timeoutMs: 10_000 });
    expect(r.output.trim()).toBe('KEPT');
    expect(manifest['notes.txt']).toBeUndefined();
  });
});
