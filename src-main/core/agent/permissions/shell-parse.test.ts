import { describe, expect, it } from 'vitest';
import { analyzeCommand } from './shell-parse';

const parts = (command: string) => analyzeCommand(command).parts;
const asks = (command: string) => analyzeCommand(command).alwaysAsk;
const topLevel = (command: string) => analyzeCommand(command).commands.filter((c) => !c.nested).map((c) => c.words.join(' '));

describe('analyzeCommand: splitting', () => {
  it.each<[string, string[]]>([
    ['npm test', ['npm test']],
    ['  npm test  ', ['npm test']],
    ['npm test && git status', ['npm test', 'git status']],
    ['a; b;c', ['a', 'b', 'c']],
    ['a || b', ['a', 'b']],
    ['ls | wc -l', ['ls', 'wc -l']],
    ['a |& b', ['a', 'b']],
    ['sleep 1 & echo hi', ['sleep 1', 'echo hi']],
    ['npm run dev &', ['npm run dev']],
    ['a\nb\n\nc', ['a', 'b', 'c']],
    ['a\r\nb', ['a\r', 'b']], // `\r` is a word character in bash
    ['echo "a;b"', ['echo "a;b"']],
    ["echo 'a && b'", ["echo 'a && b'"]],
    ['echo a\\;b', ['echo a\\;b']],
    ['echo "a | b" | cat', ['echo "a | b"', 'cat']],
    ["echo $'a\\'b;c'", ["echo $'a\\'b;c'"]],
    ['echo "a\\"b;c"', ['echo "a\\"b;c"']],
    ['echo a\\\nb', ['echo a\\\nb']],
    ['git status # not run; rm -rf /', ['git status']],
    ['echo a#b', ['echo a#b']],
    ['', []],
    ['   ', []],
    ['# only a comment', []],
  ])('%j → %j', (command, expected) => {
    expect(parts(command)).toEqual(expected);
  });

  it('keeps a command as written but matches the words without quotes, assignments and transparent wrappers', () => {
    const { commands } = analyzeCommand('FOO=1 BAR="a b" git "status" --short; timeout 60 npm test; env -i X=1 nice -n 5 ls -la');
    expect(commands.map((c) => c.text)).toEqual(['FOO=1 BAR="a b" git "status" --short', 'timeout 60 npm test', 'env -i X=1 nice -n 5 ls -la']);
    expect(commands.map((c) => c.words)).toEqual([['git', 'status', '--short'], ['npm', 'test'], ['ls', '-la']]);
  });

  it('keeps a wrapper as the command when there is nothing after it, or when it has an unknown option', () => {
    expect(topLevel('env')).toEqual(['env']);
    expect(topLevel('time')).toEqual([]); // the `time` keyword with nothing to time
    expect(topLevel('timeout --weird 5 ls')).toEqual(['timeout --weird 5 ls']);
    expect(topLevel('command -v git')).toEqual(['command -v git']);
  });

  it('does not count assignment-only commands as parts', () => {
    expect(analyzeCommand('x=1; echo $x')).toMatchObject({ parts: ['echo $x'], alwaysAsk: [] });
    expect(analyzeCommand('X=1; echo $X').alwaysAsk).toEqual(['sets X, an upper-case variable that programs or bash may read']);
    expect(analyzeCommand('a=(1 2 3); echo ok')).toMatchObject({ parts: ['echo ok'], alwaysAsk: [] });
  });

  it('analyses subshells and groups: their commands are parts', () => {
    expect(analyzeCommand('(cd sub && npm test)')).toMatchObject({ parts: ['cd sub', 'npm test'], alwaysAsk: [] });
    expect(analyzeCommand('{ echo a; echo b; }')).toMatchObject({ parts: ['echo a', 'echo b'], alwaysAsk: [] });
    expect(analyzeCommand('( (a) ; b ) && c')).toMatchObject({ parts: ['a', 'b', 'c'], alwaysAsk: [] });
    expect(asks('(cd sub && npm test) > log.txt')).toEqual(['redirects output into a file (`>log.txt`)']);
  });

  it('treats control flow keywords as structure', () => {
    expect(analyzeCommand('if [ -f x ]; then cat x; else echo no; fi')).toMatchObject({ parts: ['[ -f x ]', 'cat x', 'echo no'], alwaysAsk: [] });
    expect(analyzeCommand('for f in *.ts; do wc -l "$f"; done')).toMatchObject({ parts: ['wc -l "$f"'], alwaysAsk: [] });
    expect(analyzeCommand('while read l; do echo "$l"; done < in.txt')).toMatchObject({ parts: ['read l', 'echo "$l"'], alwaysAsk: [] });
    expect(analyzeCommand('for ((i = 0; i < 3; i++)); do echo $i; done').parts).toEqual(['echo $i']);
    expect(analyzeCommand('for ((i = 0; i < 3; i++)); do echo $i; done').alwaysAsk).not.toEqual([]); // arithmetic on names
    expect(analyzeCommand('(( 4 > 3 )) && echo big')).toMatchObject({ parts: ['(( 4 > 3 ))', 'echo big'], alwaysAsk: [] });
    expect(analyzeCommand('! grep -q x f')).toMatchObject({ parts: ['grep -q x f'], alwaysAsk: [] });
  });

  it('reads here-documents as data, not commands', () => {
    expect(analyzeCommand("cat <<'EOF'\nrm -rf / ; $(id)\nEOF\necho done")).toMatchObject({ parts: ["cat <<'EOF'", 'echo done'], alwaysAsk: [] });
    expect(analyzeCommand('cat <<-EOF | wc -l\n\trm -rf /\n\tEOF\nls')).toMatchObject({ parts: ['cat <<-EOF', 'wc -l', 'ls'], alwaysAsk: [] });
    expect(analyzeCommand('cat <<< "a; b"')).toMatchObject({ parts: ['cat <<< "a; b"'], alwaysAsk: [] });
  });
});

describe('analyzeCommand: reasons to always ask', () => {
  it.each<[string, RegExp]>([
    ['echo $(date)', /command substitution: `\$\(date\)`/],
    ['echo "today is $(date)"', /command substitution/],
    ['echo `id`', /command substitution \(backticks\): `id`/],
    ['echo "x `id` y"', /command substitution \(backticks\)/],
    ['X=$(curl evil) npm test', /command substitution/],
    ['echo ${x:-$(id)}', /command substitution/],
    ['echo $(( $(id) + 1 ))', /command substitution/],
    ['cat <<EOF\n$(id)\nEOF', /command substitution/],
    ['diff <(ls a) <(ls b)', /process substitution: `<\(ls a\)`/],
    ['tee >(wc -l)', /process substitution/],
    ['echo hi > out.txt', /redirects output into a file \(`>out.txt`\)/],
    ['echo hi >> out.txt', /`>>out.txt`/],
    ['echo hi &> out.txt', /`&>out.txt`/],
    ['echo hi &>> out.txt', /`&>>out.txt`/],
    ['echo hi >| out.txt', /`>\|out.txt`/],
    ['echo hi 1>out.txt', /`1>out.txt`/],
    ['ls 2>errors.log', /`2>errors.log`/],
    ['ls >& out.txt', /`>&out.txt`/],
    ['ls > "$F"', /redirects output into a file/],
    ['cat <> f', /redirects output into a file/],
    ['sh -c "ls"', /`sh -c` runs a string as shell code/],
    ["bash -lc 'npm test'", /`bash -c`/],
    ['bash -o pipefail -c ls', /`bash -c`/],
    ['/bin/zsh -c ls', /`zsh -c`/],
    ['dash -c ls', /`dash -c`/],
    ['env X=1 bash -c "ls"', /`bash -c`/],
    ['nohup sh -c "sleep 1" &', /`sh -c`/],
    ['timeout 5 sh -c ls', /`sh -c`/],
    ['curl -s x | sh', /`sh` without a script runs commands read from its input/],
    ['bash -s < script', /`bash` without a script/],
    ['bash script.sh', /`bash` runs a shell script/],
    ['FOO=1 npm test', /sets FOO in a command's environment/],
    ['eval "ls"', /`eval` runs a string as shell code/],
    ['exec ls', /`exec` replaces the shell/],
    ['source ./env.sh', /`source` runs a script/],
    ['. ./env.sh', /`\.` runs a script/],
    ['ls | xargs rm', /`xargs` runs commands/],
    ['sudo ls', /`sudo` runs a command with elevated privileges/],
    ['find . -name "*.o" -delete', /`find -delete` deletes files/],
    ['find . -exec rm {} \\;', /`find -exec` runs a command for each file/],
    ['find . -execdir cat {} +', /`find -execdir`/],
    ['python -c "print(1)"', /`python -c` runs inline code/],
    ['python3 -Ic "print(1)"', /`python3 -Ic` runs inline code/],
    ['node -e "1"', /`node -e` runs inline code/],
    ['node --eval=1', /`node --eval=1` runs inline code/],
    ['perl -pi -e "s/a/b/" f', /`perl -e` runs inline code/],
    ['ruby -e "p 1"', /`ruby -e`/],
    ['echo "print(1)" | python3', /`python3` without a script runs code read from its input/],
    ['echo "1" | node --no-warnings', /`node` without a script runs code read from its input/],
    ['git -c core.pager=evil log', /`git -c` can make git run other programs/],
    ['watch ls', /`watch` runs its arguments as a shell command/],
    ['PATH=/tmp/evil npm test', /sets PATH, which can change what a command runs/],
    ['LD_PRELOAD=x.so ls', /sets LD_PRELOAD/],
    ['export NODE_OPTIONS=x; npm test', /sets NODE_OPTIONS/],
    ['declare -x PATH=.', /`declare -x` sets attributes/],
    ['declare PATH=.', /sets PATH/],
    ["x='a[$(id)]'; echo $((x))", /evaluates arithmetic on data/],
    ["arr=([$(id)]=1)", /subscript/],
    ["alias ls='rm -rf /'", /defines a shell alias/],
    ['hash -p /tmp/evil npm', /`hash -p`/],
    ['enable -f x.so evil', /`enable`/],
    ['while read l; do echo $l; done < <(rm -rf /)', /process substitution/],
    ['NODE_OPTIONS="--require ./x.js" npm test', /sets NODE_OPTIONS/],
    ['env GIT_SSH_COMMAND=x git fetch', /sets GIT_SSH_COMMAND/],
    ['$CMD --help', /the command name `\$CMD` is computed when it runs/],
    ['/bin/ba* -c x', /the command name `\/bin\/ba\*` is computed/],
    ['f() { ls; }; f', /defines a shell function/],
    ['function f { ls; }', /defines a shell function/],
    ['case $x in a) echo a;; esac', /`case` statement/],
    ['echo "unterminated', /double quote is not closed/],
    ["echo 'unterminated", /single quote is not closed/],
    ['echo $(ls', /`\$\(` is not closed/],
    ['echo `ls', /backtick is not closed/],
    ['(ls', /`\(` is not closed/],
    ['ls)', /unexpected `\)`/],
    ['ls >', /`>` has no target/],
    ['echo \\$(date)', /unexpected `\(`/], // a syntax error in bash too
  ])('%j asks', (command, reason) => {
    const reasons = asks(command);
    expect(reasons.some((r) => reason.test(r)), JSON.stringify(reasons)).toBe(true);
  });

  it.each([
    "echo '$(date)'",
    "echo '`id`'",
    'echo \\$HOME \\`id\\`',
    'echo "\\$(date)"',
    'ls 2>&1',
    'ls >&2',
    'ls 2>&-',
    'ls >/dev/null',
    'ls > /dev/null 2>&1',
    'ls 2>/dev/null',
    'ls &>/dev/null',
    'ls >/dev/stderr',
    'cat < in.txt',
    'echo $((1 + 2))',
    'echo ${HOME}/x "$PWD"',
    "cat <<'EOF'\n$(id)\nEOF",
    'cat <<\\EOF\n`id`\nEOF',
    'bash --version',
    'python3 script.py -c x',
    'python -m pytest -x',
    'node build.js -e',
    'node --version',
    // A test runner or a package script, not code read from input (issue 97).
    'node --test',
    'node --test --test-reporter=spec',
    'node --run=build',
    'php -i',
    "awk '{print $1}' f",
    'find . -name "*.ts" -type f',
    'git log -p',
    'CI=1 npm test',
    'env LANG=C npm test',
    'x=1; echo $x',
    '[ -f x ] && echo yes',
    'export CI=1 LANG=C',
    'alias',
  ])('%j does not ask', (command) => {
    expect(asks(command)).toEqual([]);
  });

  it('lists commands nested in substitutions and wrappers as parts, so deny rules see them', () => {
    const nested = (command: string) => analyzeCommand(command).commands.filter((c) => c.nested).map((c) => c.words.join(' '));
    expect(nested('echo "$(rm -rf /)"')).toEqual(['rm -rf /']);
    expect(nested('echo `rm -rf /`')).toEqual(['rm -rf /']);
    expect(nested('cat <(rm -rf /)')).toEqual(['rm -rf /']);
    expect(nested("bash -c 'npm test && rm -rf /'")).toEqual(['npm test', 'rm -rf /']);
    expect(nested('eval "ls; rm x"')).toEqual(['ls', 'rm x']);
    // Wrappers that always ask report every command they may run, so deny rules see it.
    expect(nested('sudo -u root rm -rf /')).toContain('rm -rf /');
    expect(nested('ls | xargs -n 1 rm -f')).toContain('rm -f');
    expect(nested('find . -exec rm {} \\;')).toEqual(['rm {}']);
    expect(nested('nohup sh -c "rm x" &')).toEqual(['rm x']); // nohup is peeled: `sh -c` is the command
    expect(nested('cat <<EOF\n$(rm -rf /)\nEOF')).toEqual(['rm -rf /']);
    expect(nested('while read l; do echo $l; done < <(rm -rf /)')).toEqual(['rm -rf /']);
  });

  it('does not call a real substitution stored code', () => {
    expect(asks('x=$(date)')).toEqual(['uses command substitution: `$(date)`']);
  });

  it('lists each reason once', () => {
    expect(asks('echo $(a) $(a) > f > g').filter((r) => r.startsWith('uses command substitution'))).toHaveLength(1);
  });

  it('stops at deeply nested shells', () => {
    let command = 'ls';
    for (let i = 0; i < 12; i++) command = `sh -c ${JSON.stringify(command)}`;
    expect(asks(command)).toContain('the command nests shells too deeply to be checked');
  });
});
