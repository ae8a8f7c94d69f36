// checkExport: one export file against the standard (../shared/spec/export-format.md), every finding tied to its item. Pure.
import { describeItem, positions, type CheckResult, type Finding } from './findings.js';
import { checkItem, itemRef } from './item.js';
import { parseDocument, type XmlElement } from './tree.js';
import { checkWellFormed } from './xml.js';

/** Check the bytes of one export file; `target` names it in the result (a path or URL). */
export function checkExport(bytes: Uint8Array, target: string): CheckResult {
  const wellFormed = checkWellFormed(bytes);
  const findings: Finding[] = [...wellFormed.findings];
  if (wellFormed.text === undefined) return { target, findings };
  const text = wellFormed.text;
  const at = positions(text);

  let document;
  try {
    document = parseDocument(text);
  } catch (error) {
    findings.push({ severity: 'error', rule: 'xml', message: `cannot parse: ${(error as Error).message}` });
    return { target, findings };
  }
  const { declaration, root } = document;
  if (!declaration) {
    findings.push({ severity: 'warning', rule: 'declaration', message: 'no XML declaration: start the file with <?xml version="1.0" encoding="UTF-8"?>', line: 1, column: 1 });
  } else {
    if (declaration.version !== '1.0') findings.push({ severity: 'error', rule: 'declaration', message: `XML version ${declaration.version ?? '(none)'}: the standard is XML 1.0`, line: 1, column: 1 });
    const encoding = declaration.encoding;
    if (encoding !== undefined && encoding.toUpperCase() !== 'UTF-8') {
      findings.push({ severity: 'error', rule: 'declaration', message: `declared encoding ${encoding}: the standard requires UTF-8`, line: 1, column: 1 });
    }
  }
  if (!root) return { target, findings: [...findings, { severity: 'error', rule: 'root', message: 'no root element' }] };
  if (root.name !== 'rates') {
    findings.push({ severity: 'error', rule: 'root', message: `the root element is <${root.name}>; an export file's root is <rates>`, ...at(root.index) });
    return { target, findings };
  }
  if (root.text.trim() !== '') findings.push({ severity: 'error', rule: 'structure', message: `text directly inside <rates>: "${root.text.trim().slice(0, 40)}"`, ...at(root.index) });

  const items: XmlElement[] = [];
  for (const child of root.children) {
    if (child.name === 'item') items.push(child);
    else findings.push({ severity: 'error', rule: 'structure', message: `<${child.name}> inside <rates>: only <item> elements belong there`, ...at(child.index) });
  }
  if (items.length === 0) findings.push({ severity: 'warning', rule: 'empty', message: 'no items: the monitors will list none of your directions', ...at(root.index) });

  const firstOf = new Map<string, number>();
  items.forEach((item, position) => {
    const index = position + 1;
    const ref = itemRef(item, index);
    checkItem(item, (severity, rule, message, element) => {
      findings.push({ severity, rule, message, ...at((element ?? item).index), item: ref, ...(element ? { element: element.name } : {}) });
    });
    if (ref.from !== undefined && ref.to !== undefined) {
      const key = `${ref.from}\u0000${ref.to}\u0000${ref.city ?? ''}`;
      const first = firstOf.get(key);
      if (first === undefined) firstOf.set(key, index);
      else {
        findings.push({
          severity: 'error',
          rule: 'duplicate',
          message: `duplicate direction: same from and to${ref.city ? ' and city' : ', without a city,'} as ${describeItem({ ...ref, index: first })}`,
          ...at(item.index),
          item: ref,
        });
      }
    }
  });
  // Findings in document order, so the report reads top to bottom.
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { target, items: items.length, findings };
}
