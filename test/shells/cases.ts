// What completing each command line offers, in every shell (test/shells/completion.test.ts) and in bash inside
// `npm test` (test/integration/cli/completion-bash.test.ts). The codes are test/shells/harness.ts's project config's.
import { monitorProfiles } from './harness.js';

/** A command line as typed up to the cursor (a trailing space: a new word) and what completing it offers, sorted. */
export type Case = readonly [line: string, offered: readonly string[] | 'files'];

export async function completionCases(): Promise<Case[]> {
  const froms = ['BTC', 'ETH', 'USDTTRC20'];
  const btcTos = ['CASHRUB', 'SBERRUB', 'USDTTRC20'];
  return [
    ['ratefile maintenance ', ['off', 'on']],
    ['ratefile maintenance o', ['off', 'on']],
    ['ratefile edge ', ['cloudflare', 'nginx']],
    ['ratefile completion ', ['bash', 'fish', 'zsh']],
    ['ratefile completion f', ['fish']],
    ['ratefile --log-format ', ['json', 'text']],
    ['ratefile build --log-format ', ['json', 'text']],
    ['ratefile check --monitor ', (await monitorProfiles()).sort()],
    ...['explain', 'pause', 'resume', 'accept'].flatMap((command): Case[] => [
      [`ratefile ${command} `, froms],
      [`ratefile ${command} BTC `, btcTos],
      [`ratefile ${command} ETH `, ['SBERRUB']],
      [`ratefile ${command} BTC S`, ['SBERRUB']],
      [`ratefile ${command} BTC SBERRUB `, []],
    ]),
    ['ratefile explain U', ['USDTTRC20']],
    ['ratefile pause BTC CASHRUB --city ', ['MSK', 'SPB']],
    ['ratefile explain --config other.yaml ', ['LTC']],
    ['ratefile explain --config other.yaml LTC ', ['TRX']],
    ['ratefile explain -c broken.yaml ', []],
    ['ratefile explain --config missing.yaml ', []],
    ['ratefile build --config ', 'files'],
    ['ratefile at now --export ', ['parserfile.xml', 'reffile.xml']],
    ['ratefile explain BTC SBERRUB --export r', ['reffile.xml']],
    // A value in the option's word, after its `=`.
    ['ratefile check --monitor=', (await monitorProfiles()).sort()],
    ['ratefile check --monitor=moneys', ['moneyswap']],
    ['ratefile --log-format=j', ['json']],
    ['ratefile at now --export=p', ['parserfile.xml']],
    ['ratefile pause BTC CASHRUB --city=S', ['SPB']],
    ['ratefile explain --config=other.yaml ', ['LTC']],
    ['ratefile build --config=', 'files'],
  ];
}

/** The project's files, which a file-name completion offers (bash and fish may add a folder's slash). */
export const projectFiles = ['broken.yaml', 'other.yaml', 'ratefile.config.yaml'];
