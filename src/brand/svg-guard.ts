import {
  isTokenAtKeyword,
  isTokenBadURL,
  isTokenComment,
  isTokenEOF,
  isTokenFunction,
  isTokenString,
  isTokenURL,
  isTokenWhitespace,
  tokenizer,
} from '@csstools/css-tokenizer';
import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';
import type { FieldError } from '../platform/service-error.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XHTML_NS = 'http://www.w3.org/1999/xhtml';

/** The reasons an SVG is refused: each is one `errors` entry of `400 svc.brand.svg_rejected`. */
export const SVG_REASONS = {
  script: 'script element',
  handler: 'event handler attribute',
  foreign: 'foreign content',
  external: 'external reference',
  javascript: 'javascript: URL',
  doctype: 'DOCTYPE or entity',
  stylesheet: 'xml-stylesheet',
} as const;

type Reason = keyof typeof SVG_REASONS;

export type SvgVerdict =
  | { kind: 'clean' }
  /** Not an SVG image a browser would render: another slot format question (415). */
  | { kind: 'unreadable'; why: string }
  | { kind: 'unsafe'; errors: FieldError[] };

// Attributes whose value is a URL (in any namespace: `href` and `xlink:href` alike).
// `ping` (an `<a>`'s list of addresses told of a click), `cite`, `longdesc`, `manifest`: URLs too (D-1178).
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'data',
  'action',
  'formaction',
  'poster',
  'background',
  'codebase',
  'srcset',
  'ping',
  'cite',
  'longdesc',
  'manifest',
]);
const SCRIPT_ELEMENTS = new Set(['script', 'handler']);
const FOREIGN_ELEMENTS = new Set(['foreignobject', 'iframe', 'frame', 'frameset', 'embed', 'object', 'applet']);
const ANIMATIONS = new Set(['animate', 'set', 'animatetransform', 'animatemotion', 'animatecolor']);
const SCRIPT_SCHEME = /(?:java|vb|live)script:/;
// Raster images inlined as data: are the only references that may leave the document.
const RASTER_DATA = /^data:image\/(?:png|jpe?g|gif|webp|avif);base64,/;

/** Browsers drop ASCII whitespace and controls inside a URL scheme: `java\tscript:`. */
function squeeze(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls a browser drops are what this removes.
  return value.replace(/[\u0000-\u0020\u007f]+/g, '').toLowerCase();
}

function judgeUrl(value: string): Reason | undefined {
  const url = squeeze(value);
  if (SCRIPT_SCHEME.test(url)) return 'javascript';
  if (url === '' || url.startsWith('#') || RASTER_DATA.test(url)) return undefined;
  return 'external';
}

// Functions whose argument is a URL (`url("...")`; `src()` of CSS Values 4), and
// functions that take image URLs as strings.
const URL_FUNCTIONS = new Set(['url', 'src']);
const IMAGE_FUNCTIONS = new Set(['image-set', '-webkit-image-set', 'image', 'cross-fade', '-webkit-cross-fade', 'element', '-moz-element']);
// At-rules an SVG's style may use; any other (`@import`, one the guard does not know)
// might fetch something and is refused as an external reference.
const AT_RULES = new Set([
  'media',
  'supports',
  'container',
  'layer',
  'scope',
  'starting-style',
  'charset',
  'font-face',
  'font-feature-values',
  'counter-style',
  'property',
  'keyframes',
  '-webkit-keyframes',
  '-moz-keyframes',
  '-o-keyframes',
]);

/**
 * Judges CSS (a `<style>` element, a `style` attribute, a presentation attribute such
 * as `fill`) token by token, the way a browser reads it: @csstools/css-tokenizer
 * follows CSS Syntax 3, so comments, escapes (`u\72 l(`), quoted, unquoted and
 * unterminated `url(` tokens come out exactly as a browser sees them. One pass,
 * linear in the text.
 */
function judgeCss(css: string, found: (reason: Reason) => void, stylesheet = false): void {
  const tokens = tokenizer({ css }, { onParseError: () => {} });
  // After `url(` and white space, the string token is the URL.
  let urlArgument = false;
  for (let token = tokens.nextToken(); !isTokenEOF(token); token = tokens.nextToken()) {
    if (isTokenWhitespace(token) || isTokenComment(token)) continue;
    if (isTokenString(token)) {
      const reason = urlArgument ? judgeUrl(token[4].value) : SCRIPT_SCHEME.test(squeeze(token[4].value)) ? 'javascript' : undefined;
      if (reason) found(reason);
    } else if (isTokenURL(token)) {
      const reason = judgeUrl(token[4].value);
      if (reason) found(reason);
    } else if (isTokenBadURL(token)) {
      // A browser drops a malformed url(); the guard refuses it rather than guess.
      found('external');
    } else if (isTokenFunction(token)) {
      const name = token[4].value.toLowerCase();
      if (IMAGE_FUNCTIONS.has(name)) found('external');
      if (name === 'expression') found('javascript');
      urlArgument = URL_FUNCTIONS.has(name);
      continue;
    } else if (stylesheet && isTokenAtKeyword(token)) {
      if (!AT_RULES.has(token[4].value.toLowerCase())) found('external');
    }
    urlArgument = false;
  }
}

/** The deepest an SVG's elements may nest (drawing tools export a few dozen levels). */
export const MAX_SVG_DEPTH = 256;

function encodingOf(bytes: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

function decode(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder(encodingOf(bytes), { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** True when the bytes start like XML text (after a byte order mark and white space). */
export function looksLikeXml(bytes: Uint8Array): boolean {
  return /^\s*</.test(new TextDecoder(encodingOf(bytes)).decode(bytes.subarray(0, 256)));
}

/**
 * Judges an SVG (decisions, D-062 to D-065) with a real XML parser (saxes: strict, namespace-aware), never by
 * pattern-matching the raw text. Refuses, one reason each, anything that could run or
 * fetch: script elements, `on*` handlers (also set by animation), foreignObject and
 * HTML content, references that leave the document (`href`, `xlink:href`, `xml:base`,
 * `url()` in attributes and styles, `@import`), `javascript:` URLs however obfuscated,
 * a DOCTYPE (and so any entity) and `xml-stylesheet` instructions. Local references
 * (`#id`) and inlined raster images (`data:image/png;base64,...`) are fine.
 */
export function judgeSvg(bytes: Uint8Array): SvgVerdict {
  const text = decode(bytes);
  if (text === undefined) return { kind: 'unreadable', why: 'not UTF-8 or UTF-16 text' };
  const parser = new SaxesParser({ xmlns: true, position: true });
  // saxes resolves each element's namespace through every open element: a document
  // nested 200,000 deep took its 30 s. No logo nests so deep; reading stops there (D-1086).
  let depth = 0;
  let tooDeep = false;
  const found = new Map<Reason, number>();
  const flag = (reason: Reason) => {
    if (!found.has(reason)) found.set(reason, parser.line);
  };
  let root: SaxesTagNS | undefined;
  let malformed: string | undefined;
  let styleDepth = 0;
  let css = '';

  parser.on('error', (error) => {
    malformed ??= error.message;
  });
  parser.on('doctype', () => flag('doctype'));
  parser.on('processinginstruction', (pi) => {
    if (pi.target.toLowerCase() === 'xml-stylesheet') flag('stylesheet');
  });
  parser.on('attribute', (attr: SaxesAttributeNS) => {
    if (attr.prefix === 'xmlns' || attr.name === 'xmlns') return;
    const local = attr.local.toLowerCase();
    if (local.startsWith('on')) flag('handler');
    if (URL_ATTRIBUTES.has(local) || (local === 'base' && attr.prefix === 'xml')) {
      const reason = judgeUrl(attr.value);
      if (reason) flag(reason);
    }
    // Presentation attributes (`fill="url(...)"`), `style` and animation values alike.
    judgeCss(attr.value, flag);
  });
  parser.on('opentag', (tag) => {
    if (++depth > MAX_SVG_DEPTH) {
      tooDeep = true;
      throw new Error('too deep');
    }
    root ??= tag;
    const local = tag.local.toLowerCase();
    if (SCRIPT_ELEMENTS.has(local)) flag('script');
    if (FOREIGN_ELEMENTS.has(local) || tag.uri === XHTML_NS) flag('foreign');
    if (local === 'style') styleDepth += 1;
    if (ANIMATIONS.has(local)) judgeAnimation(tag, flag);
  });
  const collect = (chunk: string) => {
    if (styleDepth > 0) css += chunk;
  };
  parser.on('text', collect);
  parser.on('cdata', collect);
  parser.on('closetag', (tag) => {
    depth -= 1;
    if (tag.local.toLowerCase() === 'style' && styleDepth > 0 && --styleDepth === 0) {
      judgeCss(css, flag, true);
      css = '';
    }
  });
  try {
    parser.write(text).close();
  } catch (error) {
    malformed ??= (error as Error).message;
  }

  if (tooDeep) return { kind: 'unreadable', why: `elements nested more than ${MAX_SVG_DEPTH} deep` };
  if (root?.local.toLowerCase() !== 'svg') return { kind: 'unreadable', why: 'the root element is not <svg>' };
  if (found.size > 0) {
    const errors = [...found].map(([reason, line]) => ({ field: 'file', reason: SVG_REASONS[reason], line }));
    return { kind: 'unsafe', errors };
  }
  if (malformed) return { kind: 'unreadable', why: `not well-formed XML: ${malformed.replace(/^[^:]*:\d+:\d+: /, '')}` };
  if (root.uri !== SVG_NS || root.local !== 'svg') return { kind: 'unreadable', why: 'the root element is not in the SVG namespace' };
  return { kind: 'clean' };
}

/** `<animate attributeName="href" values="...">` and friends set what they name. */
function judgeAnimation(tag: SaxesTagNS, flag: (reason: Reason) => void): void {
  const target = (tag.attributes.attributeName?.value ?? '')
    .toLowerCase()
    .replace(/^[^:]*:/, '')
    .trim();
  if (target.startsWith('on')) flag('handler');
  if (!URL_ATTRIBUTES.has(target)) return;
  for (const name of ['values', 'from', 'to', 'by']) {
    for (const value of (tag.attributes[name]?.value ?? '').split(';')) {
      const reason = judgeUrl(value.trim());
      if (reason) flag(reason);
    }
  }
}
