// Where a JSON text first breaks the grammar, by line and column (JSON.parse on Node 20 often names neither, and
// quotes the text around the fault, line breaks and all). Pure; json-file.ts reads the file.

export interface JsonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units as editors count them. */
  column: number;
  problem: string;
}

const whitespace = /[ \t\n\r]*/y;
const numberToken = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const literalToken = /true|false|null/y;
const escape = /^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;

interface Fault {
  at: number;
  problem: string;
}

/** The end of the string opening at `start`, or where and why it is broken. */
function stringEnd(text: string, start: number): number | Fault {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) return i + 1;
    if (c < 0x20)
      return { at: i, problem: 'a line break or control character inside a string (write it as \\n, \\t, …)' };
    if (c === 0x5c /* \ */) {
      const sequence = escape.exec(text.slice(i + 1, i + 6));
      if (!sequence) return { at: i, problem: 'an unknown escape in a string' };
      i += sequence[0].length;
    }
  }
  return { at: text.length, problem: 'a string not closed before the end of the text' };
}

/** The first fault in `text` as JSON; undefined when there is none. Iterative, so deep nesting cannot overflow the stack. */
function firstFault(text: string): Fault | undefined {
  let i = 0;
  const open: ('{' | '[')[] = [];
  const skip = () => {
    whitespace.lastIndex = i;
    whitespace.exec(text);
    i = whitespace.lastIndex;
  };
  const token = (pattern: RegExp) => {
    pattern.lastIndex = i;
    if (!pattern.test(text)) return false;
    i = pattern.lastIndex;
    return true;
  };
  const got = () => (i >= text.length ? 'the end of the text' : JSON.stringify(text.slice(i, i + 1)));
  const expected = (what: string): Fault => ({ at: i, problem: `expected ${what}, got ${got()}` });
  /** A property name and its colon, after `{` or `,` in an object. */
  const key = (): Fault | undefined => {
    skip();
    if (text[i] !== '"') return expected('a property name in double quotes');
    const end = stringEnd(text, i);
    if (typeof end !== 'number') return end;
    i = end;
    skip();
    if (text[i] !== ':') return expected('":" after the property name');
    i++;
    return undefined;
  };

  for (;;) {
    // A value is expected here.
    skip();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      skip();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
      } else {
        open.push(c);
        const fault = c === '{' ? key() : undefined;
        if (fault) return fault;
        continue;
      }
    } else if (c === '"') {
      const end = stringEnd(text, i);
      if (typeof end !== 'number') return end;
      i = end;
    } else if (!token(numberToken) && !token(literalToken)) {
      return expected('a value (a string, number, object, list, true, false or null)');
    }
    // After a value: close what is open, or go on to the next item.
    for (;;) {
      skip();
      const inner = open.at(-1);
      if (inner === undefined) return i < text.length ? expected('the end of the text after the value') : undefined;
      const close = inner === '{' ? '}' : ']';
      if (text[i] === close) {
        i++;
        open.pop();
        continue;
      }
      if (text[i] !== ',') return expected(`"," or "${close}"`);
      i++;
      const fault = inner === '{' ? key() : undefined;
      if (fault) return fault;
      break;
    }
  }
}

/** Where and why `text` is not JSON, or undefined when it is. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const fault = firstFault(text);
  if (!fault) return undefined;
  const before = text.slice(0, fault.at);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: fault.at - lineStart + 1, problem: fault.problem };
}
