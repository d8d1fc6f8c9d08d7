import { XMLParser } from 'fast-xml-parser';
import { httpErrors } from '../../core/errors.ts';
import { mediaErrors } from './errors.ts';
import {
  deref,
  itemsSchema,
  type JsonSchema,
  mainType,
  nonNullBranch,
  type SchemaResolver,
} from './schema.ts';
import { decodeName, decodeText, encodeName } from './xml-names.ts';

/**
 * Reads an XML request body into the JSON value the route's body schema describes. fast-xml-parser runs
 * with entity processing off; we refuse any DTD or entity declaration (400 XML_DTD_FORBIDDEN) and resolve
 * only the predefined entities and character references ourselves, so no expansion or external fetch can
 * happen. Leaf text is typed through the schema (`"true"` → true, `"12"` → 12 where it says so); an
 * integer beyond 2^53-1 is refused. The root element's name is not checked (clients name it variously).
 */

type Node = string | NodeObject | Node[];
interface NodeObject {
  [key: string]: Node;
}

const TEXT = '#text';
const CDATA = '#cdata';
const ATTRIBUTE = '@_';
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DTD = /<!(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/i;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: CDATA,
  textNodeName: TEXT,
});

function malformed(detail: string): Error {
  return httpErrors.MALFORMED_BODY(`The XML body could not be read: ${detail}.`);
}

/** Where the section `open` at `start` ends, just past `close`; an unterminated one is malformed. */
function closing(text: string, start: number, open: string, close: string): number {
  const at = text.indexOf(close, start + open.length);
  if (at === -1) throw malformed('an unterminated comment, CDATA section or instruction');
  return at + close.length;
}

/** Element nesting, counted without parsing; a leaf inside maxDepth containers is maxDepth + 1 deep. */
function checkXmlDepth(text: string, maxDepth: number): void {
  let depth = 0;
  let index = text.indexOf('<');
  while (index !== -1) {
    const next = text.charCodeAt(index + 1);
    let resume = index + 1;
    if (next === 0x2f /* / */) depth--;
    else if (text.startsWith('<!--', index)) resume = closing(text, index, '<!--', '-->');
    else if (text.startsWith('<![CDATA[', index)) resume = closing(text, index, '<![CDATA[', ']]>');
    else if (next === 0x3f /* ? */) resume = closing(text, index, '<?', '?>');
    else {
      let end = index + 1;
      let quote = 0;
      for (; end < text.length; end++) {
        const code = text.charCodeAt(end);
        if (quote !== 0) {
          if (code === quote) quote = 0;
        } else if (code === 0x22 || code === 0x27) quote = code;
        else if (code === 0x3e /* > */) break;
      }
      if (depth + 1 > maxDepth + 1) throw mediaErrors.BODY_TOO_DEEP();
      if (text.charCodeAt(end - 1) !== 0x2f) depth++;
      resume = end + 1;
    }
    index = text.indexOf('<', resume);
  }
}

function isElementKey(key: string): boolean {
  return key !== TEXT && key !== CDATA && !key.startsWith(ATTRIBUTE);
}

function isNil(node: Node | undefined): boolean {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return false;
  for (const key of Object.keys(node)) {
    if (key.startsWith(ATTRIBUTE) && key.endsWith(':nil') && node[key] === 'true') return true;
  }
  return false;
}

function textOf(node: Node | undefined): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return decodeText(node, malformed);
  if (Array.isArray(node)) return textOf(node[0]);
  const text = node[TEXT];
  const cdata = node[CDATA];
  return (
    (typeof text === 'string' ? decodeText(text, malformed) : '') + (typeof cdata === 'string' ? cdata : '')
  );
}

function listOf(node: Node | undefined): Node[] {
  if (node === undefined) return [];
  return Array.isArray(node) ? node : [node];
}

/** The child elements of an element in document order (a repeated name arrives as an array). */
function children(node: Node): Node[] {
  if (typeof node !== 'object' || Array.isArray(node)) return [];
  const out: Node[] = [];
  for (const key of Object.keys(node)) {
    // One push per item: spreading a list of 100 000 siblings into push() overflows the stack.
    if (isElementKey(key)) for (const item of listOf(node[key])) out.push(item);
  }
  return out;
}

class XmlTyper {
  constructor(private readonly resolve: SchemaResolver) {}

  value(input: JsonSchema | undefined, node: Node): unknown {
    if (isNil(node)) return null;
    if (Array.isArray(node)) return node.map((item) => this.value(input, item));
    return this.single(input, node);
  }

  private single(input: JsonSchema | undefined, node: string | NodeObject): unknown {
    const concrete = deref(input, this.resolve);
    if (concrete === undefined) return this.generic(node);
    const schema = nonNullBranch(concrete, this.resolve);
    switch (mainType(schema)) {
      case 'object':
        return this.object(schema, node);
      case 'array':
        return children(node).map((item) => this.value(itemsSchema(schema), item));
      case 'string':
        return textOf(node);
      case 'integer':
      case 'number':
        return this.number(textOf(node), mainType(schema) === 'integer');
      case 'boolean': {
        const text = textOf(node).trim();
        if (text === 'true' || text === '1') return true;
        if (text === 'false' || text === '0') return false;
        return text;
      }
      case 'null':
        return textOf(node) === '' ? null : textOf(node);
      default:
        return this.generic(node);
    }
  }

  private number(raw: string, integer: boolean): unknown {
    const text = raw.trim();
    if (!NUMBER.test(text)) return raw;
    const value = Number(text);
    if (integer && Number.isInteger(value) && !Number.isSafeInteger(value))
      throw mediaErrors.INTEGER_OUT_OF_RANGE();
    return value;
  }

  private object(schema: JsonSchema, given: string | NodeObject): unknown {
    if (typeof given === 'string' && textOf(given) !== '') return textOf(given);
    const node: NodeObject = typeof given === 'string' ? {} : given;
    const out: Record<string, unknown> = {};
    const properties = schema.properties ?? {};
    const claimed = new Set<string>();
    for (const key of Object.keys(properties)) {
      const property = deref(properties[key], this.resolve);
      const name = encodeName(key);
      const concrete = property === undefined ? undefined : nonNullBranch(property, this.resolve);
      if (concrete !== undefined && mainType(concrete) === 'array' && property?.xml?.wrapped !== true) {
        const items = itemsSchema(concrete);
        const itemName = deref(items, this.resolve)?.xml?.name ?? name;
        claimed.add(itemName);
        const found = node[itemName];
        if (found !== undefined) out[key] = listOf(found).map((item) => this.value(items, item));
        else if (schema.required?.includes(key)) out[key] = [];
        continue;
      }
      claimed.add(name);
      const found = node[name];
      if (found !== undefined) out[key] = this.value(property, found);
    }
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const name of Object.keys(node)) {
      if (claimed.has(name) || !isElementKey(name)) continue;
      const key = decodeName(name);
      if (key === '__proto__') throw malformed('the element name __proto__ is not allowed');
      out[key] = this.value(extra, node[name] as Node);
    }
    return out;
  }

  /** No schema: leaves are strings, elements with children are objects, repeated names are lists. */
  private generic(node: Node): unknown {
    if (isNil(node)) return null;
    if (typeof node === 'string') return textOf(node);
    if (Array.isArray(node)) return node.map((item) => this.generic(item));
    const keys = Object.keys(node).filter(isElementKey);
    if (keys.length === 0) return textOf(node);
    const out: Record<string, unknown> = {};
    for (const name of keys) {
      const key = decodeName(name);
      if (key === '__proto__') throw malformed('the element name __proto__ is not allowed');
      out[key] = this.generic(node[name] as Node);
    }
    return out;
  }
}

/** Decodes an XML body (UTF-8 text) under the route's body schema; an empty body is `undefined`. */
export function decodeXml(
  raw: string,
  schema: JsonSchema | undefined,
  resolve: SchemaResolver,
  maxDepth: number,
): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.trim() === '') return undefined;
  if (DTD.test(text)) throw mediaErrors.XML_DTD_FORBIDDEN();
  checkXmlDepth(text, maxDepth);
  let document: NodeObject;
  try {
    document = parser.parse(text, true) as NodeObject;
  } catch (error) {
    throw malformed(error instanceof Error ? error.message : 'not well-formed');
  }
  const roots = Object.keys(document).filter(isElementKey);
  const root = roots.length === 1 && roots[0] !== undefined ? document[roots[0]] : undefined;
  if (root === undefined || Array.isArray(root)) throw malformed('there must be exactly one root element');
  const stray = document[TEXT];
  if (typeof stray === 'string' && stray.trim() !== '') throw malformed('text outside the root element');
  return new XmlTyper(resolve).value(schema, root);
}
