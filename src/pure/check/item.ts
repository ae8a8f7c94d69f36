// The rules for one <item>: elements present, known and in order, and what value each takes, as the rule table
// (rules.ts) has them; each value in its standard form (item-values.ts); limits and reserve consistent
// (consistency.ts).
import { closest } from '../../base/config/problems.js';
import type { ItemRef, Report } from './findings.js';
import { childNamed, type XmlElement } from './tree.js';
import { checkConsistency, type Values } from './consistency.js';
import { checkValue } from './item-values.js';
import { itemRules, type ItemRules } from './rules.js';

/** The text of each element, trimmed, and the item's reference (index and direction). */
export function itemRef(item: XmlElement, index: number): ItemRef {
  const from = childNamed(item, 'from')?.text.trim();
  const to = childNamed(item, 'to')?.text.trim();
  const city = childNamed(item, 'city')?.text.trim();
  return { index, ...(from ? { from } : {}), ...(to ? { to } : {}), ...(city ? { city } : {}) };
}

/** Whether an object has an own key, without an array of them (nearly every element has none). */
function hasKeys(object: Record<string, unknown>): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

function checkStructure(item: XmlElement, report: Report, rules: ItemRules): void {
  checkItemText(item, report);
  const seen = new Map<string, XmlElement>();
  let highest: number | undefined;
  for (const child of item.children) {
    const rule = rules.byName.get(child.name);
    if (rule === undefined) {
      const hint = closest(child.name, rules.byName.keys());
      report(
        'warning',
        'element-unknown',
        `unknown element <${child.name}>${hint ? ` (did you mean <${hint}>?)` : ''}; monitors ignore it`,
        child,
      );
      continue;
    }
    if (seen.has(child.name) && !rule.repeatable)
      report('error', 'element-repeated', `<${child.name}> appears more than once`, child);
    seen.set(child.name, child);
    if (highest !== undefined && rule.rank < highest) {
      // Monitors read elements by name; only the written standard (and EREF 1.1's XSD) fixes an order.
      report(
        'tolerated',
        'element-order',
        `<${child.name}> comes after <${rules.elements[highest]!.name}>; the standard order is ${rules.order}`,
        child,
      );
    } else {
      highest = rule.rank;
    }
    if (child.children.length > 0)
      report(
        'error',
        'element-content',
        `<${child.name}> must hold text, not elements (<${child.children[0]!.name}>)`,
        child,
      );
    if (hasKeys(child.attributes))
      report(
        'warning',
        'element-content',
        `<${child.name}> has attributes (${Object.keys(child.attributes).join(', ')}); monitors ignore them`,
        child,
      );
    if (child.text !== child.text.trim())
      report('warning', 'element-content', `<${child.name}> has spaces around its value`, child);
  }
  checkMissing(rules, seen, report);
}

/** Text directly inside <item>, outside its elements (classic and EREF 1.1 alike). */
export function checkItemText(item: XmlElement, report: Report): void {
  if (item.text.trim() !== '')
    report('error', 'structure', `text directly inside <item>: "${item.text.trim().slice(0, 40)}"`);
}

/** The elements the table says an item must have (`seen`: the item's, by name), each at the table's level. */
export function checkMissing(rules: ItemRules, seen: ReadonlyMap<string, XmlElement>, report: Report): void {
  for (const { name, missing } of rules.elements)
    if (missing !== undefined && !seen.has(name)) report(missing.level, 'element-missing', missing.message);
}

/** Check one item against the standard's rules (`rules`: the table, rules.ts), reporting each finding. */
export function checkItem(
  item: XmlElement,
  report: Report,
  codes?: ReadonlySet<string>,
  rules: ItemRules = itemRules(),
): void {
  checkStructure(item, report, rules);
  // Numbers as plain text (plain.ts): Decimal only to word a finding.
  const values: Values = { from: undefined, to: undefined, numbers: new Map(), limits: { min: [], max: [] } };
  for (const element of item.children) {
    // An element holding elements is already reported; its text would only repeat the problem.
    if (element.children.length === 0)
      checkValue(element, rules.byName.get(element.name)?.value, values, report, codes);
  }
  checkConsistency(item, values, report);
}
