// BestChange dumps for tests: the real one by path (../shared beside the clone) and synthetic ones zipped with fflate.
import { zipSync } from 'fflate';
import { encodeCp1251 } from './cp1251.js';
import { repoRoot } from './process.js';

export const realDump = `${repoRoot}../shared/data/bestchange/info-2021-03-25.zip`;

/** A dump as BestChange would zip it: each file windows-1251, CRLF or LF as given. */
export function dump(files: Record<string, string | undefined>): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const [name, text] of Object.entries(files)) if (text !== undefined) entries[name] = encodeCp1251(text);
  return zipSync(entries);
}

export const base = {
  'bm_cycodes.dat': '1;SBERRUB\n2;BTC\n3;CASHUSD\n',
  'bm_exch.dat': '10;Обменник;;0;100\n20;FastSwap;;0;200\n30;Third;;0;300\n',
  'bm_cities.dat': '1;Moscow\n2;Владивосток\n3;Нижний Тагил\n',
  'bm_info.dat': 'last_update=12:00:00, 21 ноября\ncurrent_version=2.02\n',
  // from;to;exchanger;give;get;reserve;reviews;unused;min;max;city
  'bm_rates.dat': [
    '2;1;10;1;5000000;120000000;0.15;0;0.001;2;0',
    '2;1;20;1;5100000.5;900000;1.20;0;0.01;1;0',
    '2;1;30;1;5100000.49;5000000;0.3;0;0.005;3;0',
    '1;3;10;95.5;1;20000;0.15;0;100000;1000000;1',
    '1;3;20;94.1;1;50000;0.15;0;50000;2000000;1',
    '1;3;30;93;1;70000;0.15;0;50000;2000000;2',
    '1;3;30;96;1;70000;0.15;0;50000;2000000;3',
  ].join('\r\n'),
};
