// renderEref: one export model to the bytes of a BestChange EREF 1.1 file (https://docs.bestchange.biz/main/index.html, schema https://docs.bestchange.biz/schema/1.1.xsd). Pure.
// Limits as frommin/frommax and tomin/tomax, with the legacy minamount/maxamount kept last (monitor cabinets
// still read them); fees as a number or N%; <floating minutes=…/> or percent=…; each label <manual>true</manual>;
// amount tiers as <step> elements. Where the format's description is silent it follows the classic file.
import { declaration, elementText, emptyExport, refusal } from './xml-text.js';
import type { ExportItem, ExportModel } from '../../model/items.js';

/** A classic fee (`0.0005`, `1.5 %`) as EREF writes it (`0.0005`, `1.5%`); format-fields.ts has left out fees with a currency. */
const erefFee = (fee: string) => fee.replace(' %', '%');

/** A classic floating value (`15` minutes, `1%`) as EREF's attributes. */
function erefFloating(floating: string): string {
  return floating.endsWith('%')
    ? `<floating percent="${floating.slice(0, -1)}"/>`
    : `<floating minutes="${floating}"/>`;
}

function renderItem(model: ExportModel, item: ExportItem, index: number): string {
  const lines: string[] = [];
  const element = (name: string, value: string | undefined, indent = '    ') => {
    if (value === undefined) return;
    const text = elementText(value);
    if (text === undefined) throw refusal(model.file, index, name);
    lines.push(`${indent}<${name}>${text}</${name}>`);
  };
  element('from', item.from);
  element('to', item.to);
  element('in', item.in);
  element('out', item.out);
  element('amount', item.amount);
  element('frommin', item.minamount);
  element('frommax', item.maxamount);
  element('tomin', item.tomin);
  element('tomax', item.tomax);
  element('fromfee', item.fromfee === undefined ? undefined : erefFee(item.fromfee));
  element('tofee', item.tofee === undefined ? undefined : erefFee(item.tofee));
  for (const step of item.steps ?? []) {
    lines.push(`    <step frommin="${step.frommin}" frommax="${step.frommax}">`);
    element('in', step.in, '      ');
    element('out', step.out, '      ');
    lines.push('    </step>');
  }
  element('delay', item.delay);
  if (item.floating !== undefined) lines.push(`    ${erefFloating(item.floating)}`);
  // The 1.1 XSD (https://docs.bestchange.biz/schema/1.1.xsd) types labels as xs:boolean: an empty element fails validation, so each is written true.
  for (const label of item.param?.split(', ') ?? []) lines.push(`    <${label}>true</${label}>`);
  element('city', item.city);
  element('minamount', item.minamount);
  element('maxamount', item.maxamount);
  return `  <item>\n${lines.join('\n')}\n  </item>`;
}

/** One export model to the bytes of its EREF 1.1 file (UTF-8). */
export function renderEref(model: ExportModel): Buffer {
  if (model.items.length === 0) return emptyExport();
  const items = model.items.map((item, index) => renderItem(model, item, index));
  return Buffer.from(`${declaration}<rates>\n${items.join('\n')}\n</rates>\n`, 'utf8');
}
