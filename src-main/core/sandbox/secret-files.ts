// The person's secrets as CLASSES of files (SPEC §7, §18): what never leaves this computer for a
// provider's sandbox, wherever it sits in a folder and whatever it is called. One rule with the
// home secrets the local sandbox hides (policy.ts SECRET_HOME_PATHS): a path under one of those
// folders or files (`.ssh/`, `.aws/`, `.docker/`, `.kube/`, `.netrc` …) is a secret here too, by
// that table's own reason; beside it, the classes below, by name and by content.
//
// Decided: a PUBLIC key or a certificate may go up (`id_ed25519.pub`, a `.pem`/`.crt` holding only
// `PUBLIC KEY` or `CERTIFICATE` blocks, a `.asc` public key or signature); a `.pem`, `.crt`, `.cer` or
// `.asc` is read whole for a private block (up to PEM_SCAN_BYTES: larger is held back). Names that
// are a private key's format (`.key`, `.p8`, `.p12`, `.ppk`, `.jks` …) stay behind by name alone:
// they may be binary (DER, PKCS#12) and their content says nothing readable. Templates of dotenv
// files (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`) go up: they are meant to be
// shared. Any file whose first CONTENT_SNIFF_BYTES hold a private key's header, a PuTTY key, PGP
// secret key block, an npm auth token or an AWS secret key stays behind, whatever its name — a
// source file that merely quotes such a header too (the notice names it, so it can be seen).

import { SECRET_HOME_PATHS } from './policy';

export interface SecretFileClass {
  /** The class, as the upload notice says it: `a dotenv file`. */
  why: string;
  /** Matched against the file's own name (the last part of its path). */
  names?: readonly RegExp[];
  /** Matched against the folder-relative slash path (for names that are secrets only in a place). */
  paths?: readonly RegExp[];
  /** Matched against the first CONTENT_SNIFF_BYTES of the file as latin1 text. */
  content?: readonly RegExp[];
}

/** How much of every file is read for a secret's content. */
export const CONTENT_SNIFF_BYTES = 64 * 1024;
/** A PEM-like name (`.pem`, `.crt`, `.cer`, `.asc`) is read whole up to this size; larger stays behind. */
export const PEM_SCAN_BYTES = 1024 * 1024;

const DOTENV_TEMPLATE = /[.-](example|sample|template|dist|defaults?)$/i;

/** THE classes of secret files (besides SECRET_HOME_PATHS, which are secrets here as well). */
export const SECRET_FILE_CLASSES: readonly SecretFileClass[] = [
  {
    why: 'a dotenv file',
    // `.env`, `.env.production`, `production.env`, `.envrc`, `env.local`, `.env.local.php`; not `env.ts`, `environment.md`.
    names: [/^\.env(\..+)?$/i, /^.+\.env$/i, /^\.envrc$/i, /^\.?env\.(local|dev|development|prod|production|staging|stage|test|testing|ci|secret|secrets)(\..+)?$/i, /^\.flaskenv$/i],
  },
  {
    why: 'a private key',
    names: [
      /^id_(rsa|dsa|ecdsa|ed25519|xmss)(_sk)?([._-](?!pub$)[^/]*)?$/i,
      /^(ssh_host_.*_key|identity)$/i,
      /\.(key|p8|p12|pfx|ppk|jks|keystore|bks|pkcs12|pk8|der)$/i,
      /^(secring|pubring)\.(gpg|kbx)$/i,
      /\.(gpg|pgp)$/i,
    ],
    content: [/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/, /PuTTY-User-Key-File-\d/, /openssh-key-v1\0/, /-----BEGIN PGP PRIVATE KEY BLOCK-----/],
  },
  {
    why: 'cloud credentials',
    names: [/^application_default_credentials\.json$/i, /^credentials(\.json|\.db)?$/i, /^client_secrets?([-_.].*)?\.json$/i, /^service[-_]?account.*\.json$/i, /^.*-sa(-key)?\.json$/i, /^\.boto$/i, /^\.s3cfg$/i, /^access_tokens\.db$/i, /^legacy_credentials$/i, /^kubeconfig(\..+)?$/i, /^\.vault-token$/i],
    content: [/"type"\s*:\s*"service_account"/, /"private_key"\s*:\s*"/, /aws_secret_access_key\s*=/i, /"client_secret"\s*:[^]*"refresh_token"\s*:|"refresh_token"\s*:[^]*"client_secret"\s*:/],
  },
  {
    why: 'package registry credentials',
    names: [/^\.npmrc$/i, /^\.pypirc$/i, /^\.terraformrc$/i, /^terraform\.rc$/i, /^credentials\.tfrc\.json$/i],
    paths: [/(^|\/)\.gem\/credentials$/, /(^|\/)\.cargo\/credentials(\.toml)?$/, /(^|\/)\.m2\/settings-security\.xml$/, /(^|\/)\.composer\/auth\.json$/, /(^|\/)\.nuget\/NuGet\/NuGet\.Config$/i],
    content: [/:_authToken\s*=/, /npmAuthToken\s*:/],
  },
  { why: 'login credentials', names: [/^[._]netrc$/i, /^\.htpasswd$/i, /^\.pgpass$/i, /^\.my\.cnf$/i, /^\.pg_service\.conf$/i] },
  { why: 'git credentials', names: [/^\.git-credentials$/i] },
  { why: 'registry credentials', paths: [/(^|\/)\.docker\/config\.json$/] },
  { why: 'passwords', names: [/\.(kdbx|kdb|keychain|keychain-db)$/i] },
];

const PEM_LIKE = /\.(pem|crt|cer|cert|asc)$/i;

/** Whether the file must be read whole (up to PEM_SCAN_BYTES) for a private block, not only its head. */
export function readsWhole(name: string): boolean {
  return PEM_LIKE.test(name);
}

/** The class of a folder-relative slash path that is a secret by its name or where it is, or undefined. */
export function secretByName(rel: string): string | undefined {
  const parts = rel.split('/');
  const name = parts[parts.length - 1]!;
  // §7's home secrets wherever they sit in the folder (`.ssh/`, `.aws/credentials`, `.config/gh/`, a browser profile).
  const slashed = `/${rel}/`;
  for (const rule of SECRET_HOME_PATHS) if (slashed.includes(`/${rule.path}/`)) return rule.why;
  const template = DOTENV_TEMPLATE.test(name);
  for (const c of SECRET_FILE_CLASSES) {
    if (c.why === 'a dotenv file' && template) continue;
    if (c.names?.some((re) => re.test(name)) || c.paths?.some((re) => re.test(rel))) return c.why;
  }
  return undefined;
}

/** The class of a file that is a secret by what it holds (its head, or all of a PEM-like file), or undefined. */
export function secretByContent(head: Uint8Array): string | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  for (const c of SECRET_FILE_CLASSES) if (c.content?.some((re) => re.test(text))) return c.why;
  return undefined;
}
