import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import { RADII, TYPEFACES } from './theme-tokens.js';

const Hex = v.pipe(
  v.string('must be a 6-digit hex colour like #4f46e5'),
  v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a 6-digit hex colour like #4f46e5'),
  v.toLowerCase(),
);
const Typeface = v.picklist(TYPEFACES, `must be one of ${TYPEFACES.join(', ')}`);
const Radius = v.picklist(RADII, `must be one of ${RADII.join(', ')}`);

/** The closed token set as a partial patch: any other name or value is refused. */
export const ThemeTokensPatchSchema = v.strictObject({
  colors: v.optional(
    v.strictObject({
      primary: v.optional(Hex),
      accent: v.optional(Hex),
      surface: v.optional(Hex),
      ink: v.optional(Hex),
      muted: v.optional(Hex),
    }),
  ),
  typography: v.optional(v.strictObject({ heading: v.optional(Typeface), body: v.optional(Typeface) })),
  radius: v.optional(Radius),
});

/** `PATCH /v1/projects/{id}/theme`: `tokens` is required; `null` resets to the defaults. */
export const ThemePatchSchema = named('ThemePatch', v.strictObject({ tokens: v.nullable(ThemeTokensPatchSchema) }));

export type ThemePatch = v.InferOutput<typeof ThemePatchSchema>;

const TokensSchema = v.object({
  colors: v.object({ primary: v.string(), accent: v.string(), surface: v.string(), ink: v.string(), muted: v.string() }),
  typography: v.object({ heading: v.picklist(TYPEFACES), body: v.picklist(TYPEFACES) }),
  radius: v.picklist(RADII),
});

export const ThemeSchema = named(
  'Theme',
  v.object({
    tokens: TokensSchema,
    cssVariables: v.record(v.string(), v.string()),
    customized: v.boolean(),
    updatedAt: v.string(),
  }),
);

/** The theme in force for a site, as the API answers it. */
export type Theme = v.InferOutput<typeof ThemeSchema>;

/**
 * `themes.tokens` as the service writes it: the whole closed set, each colour a 6-digit
 * hex and each typeface and radius a catalogue key. Read back with it before any value
 * becomes CSS (decisions, D-721).
 */
export const StoredTokensSchema = v.strictObject({
  colors: v.strictObject({ primary: Hex, accent: Hex, surface: Hex, ink: Hex, muted: Hex }),
  typography: v.strictObject({ heading: Typeface, body: Typeface }),
  radius: Radius,
});
