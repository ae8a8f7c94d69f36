// The completion scripts of `ratefile completion bash|zsh|fish` run by the real shells: a project folder with a config
// of its own, `ratefile` on PATH (the built binary), and one function per shell that completes a command line and
// returns the candidates it offers. bash: the script sourced, its function called with COMP_WORDS/COMP_CWORD as
// bash's completion sets them. zsh: the line typed with a Tab into an interactive `zsh -f` with compinit, in a
// pseudo-terminal (capture.zsh). fish: `complete -C`, fish's own engine.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { assertBuilt, binPath, childEnv, repoRoot } from '../support/process.js';

export type Shell = 'bash' | 'zsh' | 'fish';

const run = promisify(execFile);
const captureZsh = fileURLToPath(new URL('capture.zsh', import.meta.url));

/** The project's config: FROM codes BTC, ETH, USDTTRC20; BTC's TOs SBERRUB, USDTTRC20, CASHRUB (in MSK and SPB). */
export const projectConfig = `sources:
  backoffice: { type: file, path: quotes.json }
currencies:
  BTC: { reserve: "4.85" }
  ETH: { reserve: "96.5" }
  USDTTRC20: { reserve: "485000" }
  SBERRUB: { reserve: "18500000" }
  CASHRUB: { reserve: "25000000" }
directions:
  - from: [BTC, ETH]
    to: SBERRUB
  - from: BTC
    to: [USDTTRC20, CASHRUB]
    cities: [MSK, SPB]
  - from: USDTTRC20
    to: BTC
`;

/** Named on the line with --config: other codes. */
export const otherConfig = `currencies: { LTC: {}, TRX: {} }
directions:
  - { from: LTC, to: TRX }
`;

/** Two export templates and a private one, whose file name `--export` never offers. */
const projectTemplates = {
  'parserfile.yaml': 'description: primary\n',
  'reffile.yaml': 'description: secondary\n',
  'premium.yaml': 'private: true\nfile: premium-Qx7Rt2Lm9Vb4Nw8K.xml\n',
};

export interface Harness {
  dir: string;
  complete(shell: Shell, line: string): Promise<string[]>;
  /** What the shell's own parser says of the script without running it (`-n`): empty when it reads. */
  syntaxCheck(shell: Shell): Promise<string>;
  close(): Promise<void>;
}

/** The monitor profiles the package ships, by name: what `--monitor` completes to. */
export async function monitorProfiles(): Promise<string[]> {
  const names = await readdir(join(repoRoot, 'data/monitors'));
  return names.filter((name) => name.endsWith('.yaml')).map((name) => name.replace(/\.yaml$/, ''));
}

const shells: Record<Shell, (script: string, words: string[], line: string) => [string, string[]]> = {
  bash: (script, words) => [
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _ratefile; printf "%s\\n" "${COMPREPLY[@]}"',
      'bash',
      script,
      ...words,
    ],
  ],
  zsh: (script, _words, line) => ['zsh', ['-f', captureZsh, script, line]],
  fish: (script, _words, line) => [
    'fish',
    ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line],
  ],
};

export async function harness(): Promise<Harness> {
  assertBuilt();
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-shells-'));
  const bin = join(dir, 'bin');
  const project = join(dir, 'project');
  await mkdir(bin);
  await mkdir(project);
  await symlink(binPath, join(bin, 'ratefile'));
  await writeFile(join(project, 'ratefile.config.yaml'), projectConfig);
  await writeFile(join(project, 'other.yaml'), otherConfig);
  await writeFile(join(project, 'broken.yaml'), 'directions: [ { from: BTC\n  to: [\n');
  await mkdir(join(project, 'templates'));
  for (const [name, text] of Object.entries(projectTemplates)) await writeFile(join(project, 'templates', name), text);
  const env: NodeJS.ProcessEnv = { ...childEnv(), PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, ZDOTDIR: dir };
  delete env.RATEFILE_CONFIG;
  const scripts = new Map<Shell, string>();
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const { stdout } = await run(process.execPath, [binPath, 'completion', shell], { cwd: project, env });
    const path = join(dir, `ratefile.${shell}`);
    await writeFile(path, stdout);
    scripts.set(shell, path);
  }
  return {
    dir: project,
    async complete(shell, line) {
      // Readline breaks words at `=` too (COMP_WORDBREAKS), the `=` a word of its own: `--monitor`, `=`, `bes`.
      const words = line.split(' ').flatMap((word) => word.split(/(=)/).filter((part) => part !== ''));
      if (line.endsWith(' ')) words.push('');
      const [command, args] = shells[shell](scripts.get(shell)!, words, line);
      const { stdout, stderr } = await run(command, args, { cwd: project, env });
      if (stderr !== '') throw new Error(`${shell} wrote to stderr completing "${line}":\n${stderr}`);
      // fish gives each candidate's description after a tab, and an inline value with its option (`--monitor=…`),
      // which bash and zsh keep on the line as it was typed: compared as the value alone.
      const inline = /(--[^ =]+=)[^ ]*$/.exec(line)?.[1];
      const offered = stdout
        .split('\n')
        .map((candidate) => candidate.split('\t')[0]!)
        .map((candidate) => (inline && candidate.startsWith(inline) ? candidate.slice(inline.length) : candidate));
      return [...new Set(offered.filter((candidate) => candidate !== ''))].sort();
    },
    async syntaxCheck(shell) {
      const { stdout, stderr } = await run(shell, ['-n', scripts.get(shell)!], { env });
      return stdout + stderr;
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
