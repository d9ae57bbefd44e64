import { createHash } from 'node:crypto';
import { DEFAULT_TOKENS, RADIUS_LENGTHS, TYPEFACE_STACKS, cssVariables } from '../../src/theme/theme-tokens.js';

/** An inline `<style>` and the CSP source that allows exactly it (`'sha256-…'`). */
export interface InlineStyle {
  css: string;
  source: string;
}

const HEX = /^#[0-9a-fA-F]{6}$/;
const STACKS = new Set<string>(Object.values(TYPEFACE_STACKS));
const LENGTHS = new Set<string>(Object.values(RADIUS_LENGTHS));
const DEFAULTS = cssVariables(DEFAULT_TOKENS);

// The variables a page may carry and what each value may be: a 6-digit hex colour, a
// stack of the typeface catalogue, a length of the radius catalogue (D-871).
const ALLOWED: Record<string, (value: string) => boolean> = {
  '--color-primary': (v) => HEX.test(v),
  '--color-accent': (v) => HEX.test(v),
  '--color-surface': (v) => HEX.test(v),
  '--color-ink': (v) => HEX.test(v),
  '--color-muted': (v) => HEX.test(v),
  '--font-heading': (v) => STACKS.has(v),
  '--font-body': (v) => STACKS.has(v),
  '--radius': (v) => LENGTHS.has(v),
};

/**
 * The theme's CSS variables as one `:root` rule. Only the known variables, and only
 * values of their closed sets: anything else (a stored token the service should never
 * have kept) is replaced by the default, so no text of a row reaches the CSS (D-871).
 */
export function rootVariables(variables: Readonly<Record<string, string>>): string {
  const declarations = Object.entries(ALLOWED).map(([name, allowed]) => {
    const value = variables[name];
    return `${name}:${typeof value === 'string' && allowed(value) ? value : DEFAULTS[name]}`;
  });
  return `:root{${declarations.join(';')}}`;
}

/** The CSP source of an inline style: the base64 SHA-256 of its exact text. */
export function styleSource(css: string): string {
  return `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
}

/** How many distinct themes' styles are kept (a few bytes each). */
const MAX_STYLES = 1_000;

/**
 * The inline variables of a themed page, with their hash, computed once per distinct
 * theme and kept (least recently used leave first): the page and its CSP are built
 * from the same cached text, never hashed per request (D-871).
 */
export class ThemeStyles {
  readonly #cache = new Map<string, InlineStyle>();

  /** The `<style>` text and CSP source for a theme's `cssVariables`. */
  get(variables: Readonly<Record<string, string>>): InlineStyle {
    const css = rootVariables(variables);
    const hit = this.#cache.get(css);
    if (hit) {
      this.#cache.delete(css);
      this.#cache.set(css, hit);
      return hit;
    }
    const style = { css, source: styleSource(css) };
    this.#cache.set(css, style);
    if (this.#cache.size > MAX_STYLES) this.#cache.delete(this.#cache.keys().next().value!);
    return style;
  }
}
