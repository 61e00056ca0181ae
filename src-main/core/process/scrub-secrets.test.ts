// THE secret scrubber on a corpus: each positive's secret is gone (and what names it stays),
// each negative — ordinary code and prose that only names a secret — comes back unchanged.
import { describe, expect, it } from 'vitest';
import { withholdFromCommands } from './app-secrets';
import { scrubSecrets, scrubSecretsIn } from './scrub-secrets';

const PEM_BODY = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n';

/** [text, the secret that must not remain, what must remain]. */
const POSITIVES: Array<[string, string, string]> = [
  ['{"api_token": "tok-9f8e7d6c5b4a"}', 'tok-9f8e7d6c5b4a', '{"api_token": "[redacted]"}'],
  ['{"apiKey":"abcd1234efgh5678"}', 'abcd1234efgh5678', '"apiKey":"[redacted]"'],
  ["{'API-TOKEN': 'abcd1234efgh'}", 'abcd1234efgh', "'API-TOKEN': '[redacted]'"],
  ['api-token: abcd1234efgh', 'abcd1234efgh', 'api-token: [redacted]'],
  ['token: 0a1b2c3d4e5f\nname: x', '0a1b2c3d4e5f', 'token: [redacted]\nname: x'],
  ['secret = "s3cr3t-value"', 's3cr3t-value', 'secret = "[redacted]"'],
  ['password: hunter2', 'hunter2', 'password: [redacted]'],
  ['Password: hunter2 # the staging one', 'hunter2', 'Password: [redacted] #'],
  ['PASSWORD=hunter2 ./deploy.sh', 'hunter2', 'PASSWORD=[redacted] ./deploy.sh'],
  ["passwd='correct horse'", 'correct horse', "passwd='[redacted]'"],
  ['client_secret: "cs_7d9f8a7s6d"', 'cs_7d9f8a7s6d', 'client_secret: "[redacted]"'],
  ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI', 'aws_secret_access_key = [redacted]'],
  ['"access_key": "ak-1234-5678"', 'ak-1234-5678', '"access_key": "[redacted]"'],
  ["privateKey: 'pk-abcdef-123',", 'pk-abcdef-123', "privateKey: '[redacted]',"],
  ['auth: dXNlcjpwYXNz', 'dXNlcjpwYXNz', 'auth: [redacted]'],
  ['//registry.npmjs.org/:_authToken=npm-tok-12345678', 'npm-tok-12345678', '_authToken=[redacted]'],
  ['MYSQL_PASSWORD=abc12345 mysql', 'abc12345', 'MYSQL_PASSWORD=[redacted] mysql'],
  ['DJANGO_SECRET_KEY=dj-abc12345', 'dj-abc12345', 'DJANGO_SECRET_KEY=[redacted]'],
  ['SESSION_SECRET=abcdef123456', 'abcdef123456', 'SESSION_SECRET=[redacted]'],
  ["['password' => 'php-secret-1'];", 'php-secret-1', "'password' => '[redacted]'"],
  ['passphrase: "my long pass phrase"', 'my long pass phrase', 'passphrase: "[redacted]"'],
  ['x-api-key: xk-0123456789', 'xk-0123456789', 'x-api-key: [redacted]'],
  ['deploy --password hunter2x --verbose', 'hunter2x', '--password [redacted] --verbose'],
  ['gh auth login --token=abc123xyz', 'abc123xyz', '--token=[redacted]'],
  ['https://example.com/cb?state=1&access_token=ya29abc123&x=2', 'ya29abc123', 'access_token=[redacted]&x=2'],
  [JSON.stringify({ command: `curl -d '{"api_token": "tok-in-json-9z9z"}' https://api.example.com` }), 'tok-in-json-9z9z', String.raw`\"api_token\": \"[redacted]\"`],
  [JSON.stringify({ content: 'password: hunter2\nuser: me' }), 'hunter2', String.raw`password: [redacted]\nuser: me`],
  ['Authorization: Bearer abc.def.ghi1234567', 'abc.def.ghi1234567', 'Authorization: Bearer [redacted]'],
  ['curl -H "Authorization: token ghx_notashape12345" https://api.github.com', 'ghx_notashape12345', '"Authorization: token [redacted]"'],
  ['authorization: Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNzd29yZA', 'authorization: Basic [redacted]'],
  ['Proxy-Authorization: Negotiate YIIabcdEFGH', 'YIIabcdEFGH', 'Proxy-Authorization: Negotiate [redacted]'],
  ['{"headers": {"Authorization": "Digest username=me, response=6629fae4"}}', 'username=me', '"Authorization": "Digest [redacted]'],
  ['sent with Bearer 0123456789abcdefXYZ in the header', '0123456789abcdefXYZ', 'Bearer [redacted] in the header'],
  ['the key is sk-proj-AbC123dEf456GhI789jKl0MnO', 'sk-proj-AbC123dEf456', 'the key is [redacted]'],
  ['key sk-ant-api03-AbCdEf0123456789-xyzXYZ_0123', 'sk-ant-api03', 'key [redacted]'],
  ['old sk-0123456789abcdefghijABCDEFGHIJ key', 'sk-0123456789', 'old [redacted] key'],
  ['ghp_0123456789abcdefghijABCDEFGHIJ012345 is mine', 'ghp_0123456789', '[redacted] is mine'],
  ['gho_0123456789abcdefghijABCDEFGHIJ012345', 'gho_', '[redacted]'],
  ['ghs_0123456789abcdefghijABCDEFGHIJ012345', 'ghs_', '[redacted]'],
  ['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'github_pat_11ABC', '[redacted]'],
  ['id AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE', 'id [redacted] here'],
  ['xoxb-1234567890-abcdefghij', 'xoxb-1234567890', '[redacted]'],
  ['AIzaSyA-1234567890abcdefghijklmnopqrstu', 'AIzaSyA-1234567890', '[redacted]'],
  ['sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_4eC39', '[redacted]'],
  ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U.', 'eyJhbGci', 'jwt [redacted].'],
  ['npm_0123456789abcdefghijABCDEFGHIJ0123', 'npm_0123', '[redacted]'],
  ['glpat-0123456789abcdefghij', 'glpat-0123', '[redacted]'],
  ['git clone https://deploy:s3cretpw@git.example.com/repo.git', 's3cretpw', 'git clone https://[redacted]@git.example.com/repo.git'],
  ['git remote add origin https://x-access-token:abc123@github.com/o/r', 'abc123', 'https://[redacted]@github.com/o/r'],
  ['postgres://app:pgpass123@db:5432/app', 'pgpass123', 'postgres://[redacted]@db:5432/app'],
  [`before\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}-----END RSA PRIVATE KEY-----\nafter`, 'MIIEowIBAAKCAQEAu1SU', 'before\n[redacted private key]\nafter'],
  [`-----BEGIN OPENSSH PRIVATE KEY-----\n${PEM_BODY}`, 'MIIEowIBAAKCAQEAu1SU', '[redacted private key]'],
  [`…cut… ${PEM_BODY}-----END EC PRIVATE KEY-----\n$ `, 'VTLw7onLRnrq', '…cut… [redacted private key]\n$ '],
  [`-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${PEM_BODY}-----END PGP PRIVATE KEY BLOCK-----`, 'MIIEowIBAAKCAQEAu1SU', '[redacted private key]'],
  [JSON.stringify({ private_key: `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}-----END PRIVATE KEY-----\n` }), 'MIIEowIBAAKCAQEAu1SU', '{"private_key":"[redacted private key]\\n"}'],
  ['use held-key-value-corpus-1 here', 'held-key-value-corpus-1', 'use [redacted] here'],
];

/** Ordinary code and prose: unchanged. */
const NEGATIVES: string[] = [
  'const tokenCount = 5;',
  'password_field_label: "Your password"',
  'function getToken() { return this.token; }',
  'const token = await getToken();',
  'token: string;',
  'password?: string;',
  'private readonly token: string | undefined;',
  'if (password === confirmPassword) return;',
  'if token == "" or password != "":',
  'max_tokens: 4096',
  'MAX_TOKENS=4096',
  'maxTokens = 1024',
  'const secret = process.env.SECRET;',
  'apiKey: options.apiKey,',
  'this.token = token;',
  'auth: true,',
  'auth = require("./auth")',
  '"token_usage": {"input": 10, "output": 3}',
  'tokenizer = AutoTokenizer.from_pretrained("gpt2")',
  "const key = 'value';",
  'headers: { Authorization: `Bearer ${token}` }',
  'TOKEN=$GITHUB_TOKEN make release',
  'password: ${{ secrets.DB_PASSWORD }}',
  'token = tokens[0]',
  'const { token } = useAuth();',
  "let password = '';",
  'Enter your password:',
  'def login(username: str, password: str) -> bool:',
  'passwordHash = hash(password)',
  'secretary: "Jane"',
  'authorName: "Ada"',
  'apiKey: apiKey,',
  'token: accessToken,',
  'a risk-assessment-for-the-long-project-name-2024 here',
  'pip install scikit-learn sk-video',
  'https://github.com/org/repo.git and git@github.com:org/repo.git',
  'authorization: "high"',
  '{"decision": "allow", "risk": "low", "authorization": "medium"}',
  'Bearer tokens are sent in the Authorization header.',
  '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----',
  'std::string token::value() const;',
  'The token limit is reached: compact the thread.',
  'export GITHUB_TOKEN',
  'GITHUB_TOKEN=[redacted]',
  'if [ "$PWD" = / ]; then cd "$OLDPWD"; fi',
  'else if (two === "&&") token = two;',
  'permissions:\n  id-token: write   # for OIDC\n  contents: read',
  "await fetch(url, { credentials: 'same-origin' });",
  'let auth: AuthServer;',
  '"next-auth": "^4.24.5",',
  "fetch(url, { headers: { 'x-api-key': key } });",
  'listModels({ ...(key ? { apiKey: key } : {}) })',
  "const STORAGE_KEY = 'deepdesk.layout.v1';",
  'git+ssh://git@host/kb.git and ssh://dev@box:2222/p and postgres://me@db/team',
  'www-authenticate: Bearer resource_metadata="https://x/.well-known/oauth"',
  "authorization: z.enum(['none', 'low', 'medium', 'high']),",
  'privateKey: /etc/certs/client-key.pem',
  'new CommandDefinition(sql, parameters, cancellationToken: ct));',
  'pattern: password = "..."',
  'const GROUP_KEY: Record<UsageGrouping, string> = {',
  "TOKEN=${GH_TOKEN:-none} and ${API_TOKEN:=x}",
  "content: [/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/, /-----BEGIN PGP PRIVATE KEY BLOCK-----/],\nnext: line",
  "'api-key': 'the API key', token: \"the host's token\",",
  'docs: `npmAuthToken:` (a `.yarnrc.yml`) and `--api-key KEY`; "env": { "ANTHROPIC_API_KEY": "sk-ant-…" }',
];

describe('the secret scrubber', () => {
  it(`takes the secret out of each of the ${POSITIVES.length} positives and keeps what names it`, () => {
    withholdFromCommands('held-key-value-corpus-1');
    const failures = POSITIVES.flatMap(([text, secret, kept]) => {
      const out = scrubSecrets(text);
      return out.includes(secret) || !out.includes(kept) ? [`${text}\n  → ${out}`] : [];
    });
    expect(failures).toEqual([]);
  });

  it(`leaves each of the ${NEGATIVES.length} negatives (code and prose naming a secret) unchanged`, () => {
    expect(NEGATIVES.filter((text) => scrubSecrets(text) !== text)).toEqual([]);
  });

  it('scrubs plain data: the strings, and the value of a key whose name says secret', () => {
    const data = { name: 'deploy', args: { api_key: 'plain-1234', password: 'x', limit: 5, token_count: '7' }, headers: [{ Authorization: 'Basic dXNlcjpwYXNz' }], review: { authorization: 'high' }, out: 'TOKEN=abc123 ok' };
    expect(scrubSecretsIn(data)).toEqual({
      name: 'deploy',
      args: { api_key: '[redacted]', password: '[redacted]', limit: 5, token_count: '7' },
      headers: [{ Authorization: '[redacted]' }],
      review: { authorization: 'high' },
      out: 'TOKEN=[redacted] ok',
    });
  });
});
