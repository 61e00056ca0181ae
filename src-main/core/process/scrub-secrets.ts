// THE secret scrubber: what leaves for a model other than the thread's own (the reviewer's
// prompt, SPEC §23; the grader's evidence, §21) and for telemetry (spans, LangSmith runs, §17)
// is sent with its secrets replaced — the keys Deepdesk holds, private-key PEM blocks,
// `Authorization` headers (their scheme kept), known token shapes, credentials in URLs, and the
// value given to any name that says secret (`"api_token": "…"`, `password: …`, `DB_PASSWORD=…`,
// `--token …`), but not code that only names one (`tokenCount = 5`, `token: string`,
// `const token = await getToken()`): its corpus is scrub-secrets.test.ts.

import { heldValues } from './app-secrets';

const REDACTED = '[redacted]';

/** A private key, whole; one whose END was cut off, to the end (not a pattern naming its BEGIN line: a line break follows). */
const PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:\r?\n|\\r\\n|\\n)[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g;
/** The end of a private key whose beginning was cut off (a tail); the base64 lines before it go too. */
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const BASE64_OR_BREAK = /[A-Za-z0-9+/=\\\r\n]/;
/** An `Authorization` header's credentials, whatever the scheme (kept); a bare Bearer token. */
const AUTHORIZATION = /\b((?:proxy-)?authorization\\?["'`]?[ \t]*[:=][ \t]*\\?["'`]?(?:[A-Za-z][\w-]*[ \t]+)?)([^\s"'`\\,;]{8,})/gi;
const BEARER = /\b(Bearer[ \t]+)(?=[\w.~+/-]*\d)[\w.~+/-]{16,}=*/g;
const TOKEN_SHAPES = new RegExp(
  [
    String.raw`\bsk-(?=[\w-]*\d)[\w-]{20,}`, // OpenAI sk-, sk-proj-; Anthropic sk-ant-
    String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`, // Stripe
    String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})`, // GitHub
    String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, // AWS access key ids
    String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`, // Slack
    String.raw`\bAIza[\w-]{35}`, // Google
    String.raw`\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*`, // JWTs
    String.raw`\b(?:npm_[A-Za-z0-9]{30,}|glpat-[\w-]{20,}|hf_[A-Za-z0-9]{30,})`, // npm, GitLab, Hugging Face
  ].join('|'),
  'g',
);
/** `user:password@` or a long user alone (a token: `https://ghp_…@github.com`); not `ssh://git@host`. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/@:[\]]+:[^\s/@]*|[^\s/@:[\]]{16,})@/gi;
/**
 * A name and how it is given a value, then (looked at, not taken: a name inside a value is seen
 * too) the value and what follows it: `name: v`, `"name": "v"` (also inside a JSON string,
 * `\"name\": \"v\"`), `NAME=v`, `name => 'v'`, and `--name v` for a flag. Only a name with a
 * secret's word in it is looked further at, whole, and a value at most 1024 (quoted: 4096)
 * characters, so that a text costs about its length.
 */
const ASSIGNMENT =
  /(?<![\w$@.-])(?=[\w$@.-]*?(?:token|secret|pass|credential|auth|key))((?:--)?[A-Za-z_$@][\w$@.-]*)(?![\w$@.-])(\\?["'`]?)(:(?![:/=+?-])[ \t]*|[ \t]*(?::=|=>|=(?!=))[ \t]*|(?<=--[\w$@.-]+)[ \t]+(?!-))(?=("(?:[^"\\\n]|\\.){0,4096}"|'[^'\n]{0,4096}'|\\"(?:[^"\\\n]|\\[^"]){0,4096}\\"|[^\s"'`\\&;|,)}[\]]{1,1024})(?=[ \t]*([^ \t]?)))/gi;

/** The last word of a secret's name (`api_token`, `DB_PASSWORD`, `clientSecret`, `_auth`). */
const SECRET_WORDS = new Set(['token', 'secret', 'password', 'passwd', 'passphrase', 'credential', 'credentials', 'auth', 'apikey']);
/** The word before a last `key` that makes it a secret (`api_key`, `privateKey`, `AWS_SECRET_ACCESS_KEY`). */
const KEY_KINDS = new Set(['api', 'access', 'secret', 'private', 'client', 'signing', 'encryption', 'master', 'session', 'auth', 'account', 'service', 'license', 'deploy']);
/** A value that stands in for one: a keyword or type, a reference (`$X`, `${X}`, `%X%`, `<yours>`, `***`, `…`), a path, a version. */
const STAND_IN = /^(?:true|false|null|nil|none|undefined|string|number|boolean|bool|str|int|bytes|any|unknown|object|optional|required|read|write|include|omit|same-origin)$|^[$%<*/~.]|…|\$\{|^[\^~]?\d+\.\d/i;
/** An unquoted value that is code or a placeholder: a call or generic, a member, a camel-cased or upper-case name, a small number. */
const CODE = /^[A-Z][A-Z_]*$|^[{(]|[(<]|^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$|^[a-zA-Z][a-z]+(?:[A-Z][a-z]{2,})+$|^\d{1,5}$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `text` with its secrets replaced by `[redacted]`. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const secret of heldValues()) out = out.split(secret).join(REDACTED);
  out = cutKeyTails(out.replace(PEM, '[redacted private key]'))
    .replace(AUTHORIZATION, (match: string, head: string, credentials: string) => (/^[$<{[*]|\(/.test(credentials) ? match : head + REDACTED))
    .replace(BEARER, `$1${REDACTED}`)
    .replace(TOKEN_SHAPES, REDACTED)
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`);
  return scrubAssignments(out);
}

/** A copy of plain data (what JSON gives, telemetry's inputs) with its strings scrubbed and the value of a secret-named key replaced. */
export function scrubSecretsIn(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => scrubSecretsIn(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, typeof item === 'string' && isSecretValue(key, item) ? REDACTED : scrubSecretsIn(item, depth + 1)]));
}

/** A header's credentials are long (`authorization: "high"` is a reviewer's answer); any other secret-named key's value is one. */
function isSecretValue(key: string, value: string): boolean {
  return /^(?:proxy-)?authorization$/i.test(key) ? value.length >= 8 : value !== '' && isSecretName(key);
}

function isSecretName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const last = words.at(-1) ?? '';
  return SECRET_WORDS.has(last) || (last === 'key' && KEY_KINDS.has(words.at(-2) ?? ''));
}

/** Each value given to a secret's name replaced. */
function scrubAssignments(text: string): string {
  let out = '';
  let at = 0;
  for (const match of text.matchAll(ASSIGNMENT)) {
    const [head, name = '', , separator = '', value = '', next = ''] = match;
    if (match.index < at || !isSecretName(name) || value.includes('[redacted')) continue;
    const start = match.index + head.length;
    const replacement = assignedValue(name, value, separator, next);
    if (replacement === undefined) continue;
    out += text.slice(at, start) + replacement;
    at = start + value.length;
  }
  return out + text.slice(at);
}

/** What replaces a secret's value; undefined when it is a stand-in, words (but a password's) or code (`token: string`, `token = tokens[0]`). */
function assignedValue(name: string, value: string, separator: string, next: string): string | undefined {
  const quoted = /^(\\?["'])([\s\S]*)\1$/.exec(value);
  if (quoted) return quoted[2] === '' || STAND_IN.test(quoted[2]!) || (/\s/.test(quoted[2]!) && !/pass/i.test(name)) ? undefined : `${quoted[1]}${REDACTED}${quoted[1]}`;
  if (STAND_IN.test(value) || CODE.test(value) || (IDENTIFIER.test(value) && isSecretName(value))) return undefined;
  // `NAME=v` and `--name v` give a value. After `name: ` or `name = ` a value is one where the
  // line ends (`password: hunter2`), or a list's item ends when it is not a name (`{ token: t }`).
  if (separator === '=' || separator.trim() === '' || /^[\r\n#\\]?$/.test(next)) return REDACTED;
  return !IDENTIFIER.test(value) && /^[,;})\]&|]$/.test(next) ? REDACTED : undefined;
}

/** A private key's tail whose BEGIN line was cut off: from its base64 lines to its END line. */
function cutKeyTails(text: string): string {
  const end = PEM_END.exec(text);
  if (end === null) return text;
  let start = end.index;
  while (start > 0 && BASE64_OR_BREAK.test(text.charAt(start - 1))) start--;
  return `${text.slice(0, start)}[redacted private key]${cutKeyTails(text.slice(end.index + end[0].length))}`;
}
