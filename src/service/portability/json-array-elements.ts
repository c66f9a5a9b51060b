/**
 * The elements of one array inside a JSON document, read as the text arrives: the document itself
 * when it is an array, or the array under a top-level key (mem0's `{"results": [...]}`). Only one
 * element's text is held at a time, so memory follows the largest element, never the document;
 * each element is then parsed with JSON.parse. Outside the elements only the nesting and strings
 * are followed (what the import does not read is not validated further).
 */
import { InvalidArgumentError } from '../../core/errors.js';

export interface ArrayElement {
  /** 1-based, in the order of the document. */
  readonly index: number;
  readonly value: unknown;
}

export interface ArrayElementOptions {
  /** What messages call the document. */
  readonly name: string;
  /** The top-level key whose array is read when the document is an object. */
  readonly key: string;
  /** An element longer than this is refused. */
  readonly maxElementChars: number;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
/** Top-level keys longer than this are not compared (they cannot be `key`). */
const MAX_KEY_CHARS = 256;

export async function* jsonArrayElements(chunks: AsyncIterable<string>, options: ArrayElementOptions): AsyncGenerator<ArrayElement> {
  const notJson = (why: string): InvalidArgumentError => new InvalidArgumentError(`${options.name} is not JSON (${why}; cut short, or not a mem0 export)`);
  /** The open containers, outermost first. */
  const stack: ('{' | '[')[] = [];
  let inString = false;
  let escaped = false;
  let started = false;
  let ended = false;
  /** The depth of the array whose elements are read (stack length inside it); 0 until it opens. */
  let target = 0;
  let targetDone = false;
  // Top-level object: whether the next string is a key, the key being read, the last key read.
  let expectKey = false;
  let key: string | null = null;
  let lastKey: string | null = null;
  let valueOfKey = false;
  // The element being read: its text so far, or null between elements.
  let element: string | null = null;
  let elementStart = -1;
  let index = 0;
  const finish = (text: string): ArrayElement => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw notJson(`element ${index + 1} is malformed`);
    }
    index += 1;
    return { index, value };
  };

  for await (const chunk of chunks) {
    const found: ArrayElement[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charAt(i);
      const depth = stack.length;
      if (element === null && depth === target && target > 0 && !targetDone && !inString && !WHITESPACE.has(c) && c !== ',' && c !== ']') {
        element = '';
        elementStart = i;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
        else if (key !== null && key.length <= MAX_KEY_CHARS) key += c;
        if (!inString && key !== null) {
          lastKey = key;
          key = null;
        }
        continue;
      }
      if (WHITESPACE.has(c)) continue;
      if (ended) throw notJson('text after the document');
      if (!started) {
        started = true;
        if (c === '[') target = 1;
        else if (c === '{') expectKey = true;
        else throw notJson('neither an array nor an object');
      }
      if (valueOfKey) {
        valueOfKey = false;
        if (c !== '[') throw new InvalidArgumentError(`${options.name}: "${options.key}" is not an array of memories`);
        target = 2;
      }
      if (c === '"') {
        inString = true;
        if (depth === 1 && stack[0] === '{' && expectKey) {
          key = '';
          expectKey = false;
        }
      } else if (c === '{' || c === '[') {
        stack.push(c);
      } else if (c === '}' || c === ']') {
        if (stack.pop() !== (c === '}' ? '{' : '[')) throw notJson(`an unmatched "${c}"`);
        if (stack.length === 0) ended = true;
      } else if (depth === 1 && stack[0] === '{') {
        if (c === ',') expectKey = true;
        else if (c === ':' && lastKey === options.key && target === 0) valueOfKey = true;
      }
      // An element ends at the comma after it in the target array, or at the bracket closing that array.
      if (element !== null && ((c === ',' && stack.length === target) || (c === ']' && stack.length === target - 1))) {
        const text = element + chunk.slice(elementStart, i);
        element = null;
        found.push(finish(text));
      }
      if (target > 0 && stack.length < target) targetDone = true;
    }
    if (element !== null) {
      element += chunk.slice(elementStart);
      elementStart = 0;
      if (element.length > options.maxElementChars) {
        throw new InvalidArgumentError(`${options.name}: element ${index + 1} is longer than ${options.maxElementChars} characters`);
      }
    }
    yield* found;
  }
  if (!ended) throw notJson(started ? 'it ends inside a value' : 'it is empty');
  if (target === 0) throw new InvalidArgumentError(`${options.name} is neither {"${options.key}": [...]} nor an array of memories`);
}
