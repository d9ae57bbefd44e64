/** The typeface catalogue (CONTRACT, Theme), each with the CSS stack it stands for. */
export const TYPEFACE_STACKS = {
  inter: "'Inter', ui-sans-serif, system-ui, sans-serif",
  roboto: "'Roboto', ui-sans-serif, system-ui, sans-serif",
  'open-sans': "'Open Sans', ui-sans-serif, system-ui, sans-serif",
  lato: "'Lato', ui-sans-serif, system-ui, sans-serif",
  montserrat: "'Montserrat', ui-sans-serif, system-ui, sans-serif",
  poppins: "'Poppins', ui-sans-serif, system-ui, sans-serif",
  'playfair-display': "'Playfair Display', ui-serif, Georgia, serif",
  merriweather: "'Merriweather', ui-serif, Georgia, serif",
  lora: "'Lora', ui-serif, Georgia, serif",
  'space-grotesk': "'Space Grotesk', ui-sans-serif, system-ui, sans-serif",
  'dm-sans': "'DM Sans', ui-sans-serif, system-ui, sans-serif",
  'jetbrains-mono': "'JetBrains Mono', ui-monospace, monospace",
  'system-ui': 'system-ui, sans-serif',
} as const;

/** The radius catalogue, each with its CSS length. */
export const RADIUS_LENGTHS = {
  none: '0',
  sm: '0.125rem',
  md: '0.375rem',
  lg: '0.5rem',
  xl: '0.75rem',
  full: '9999px',
} as const;

export type Typeface = keyof typeof TYPEFACE_STACKS;
export type Radius = keyof typeof RADIUS_LENGTHS;
export const TYPEFACES = Object.keys(TYPEFACE_STACKS) as Typeface[];
export const RADII = Object.keys(RADIUS_LENGTHS) as Radius[];
export const COLOR_TOKENS = ['primary', 'accent', 'surface', 'ink', 'muted'] as const;

export interface ThemeTokens {
  colors: Record<(typeof COLOR_TOKENS)[number], string>;
  typography: { heading: Typeface; body: Typeface };
  radius: Radius;
}

/** A partial patch of the closed token set. */
export interface ThemeTokensPatch {
  colors?: Partial<ThemeTokens['colors']> | undefined;
  typography?: Partial<ThemeTokens['typography']> | undefined;
  radius?: Radius | undefined;
}

export const DEFAULT_TOKENS: ThemeTokens = {
  colors: { primary: '#4f46e5', accent: '#f59e0b', surface: '#ffffff', ink: '#111827', muted: '#6b7280' },
  typography: { heading: 'inter', body: 'inter' },
  radius: 'md',
};

/** Merges a partial patch onto the tokens in force. */
export function mergeTokens(current: ThemeTokens, patch: ThemeTokensPatch): ThemeTokens {
  return {
    colors: { ...current.colors, ...patch.colors },
    typography: { ...current.typography, ...patch.typography },
    radius: patch.radius ?? current.radius,
  };
}

/** The CSS custom properties of a token set, ready to inject in `:root`. */
export function cssVariables(tokens: ThemeTokens): Record<string, string> {
  return {
    '--color-primary': tokens.colors.primary,
    '--color-accent': tokens.colors.accent,
    '--color-surface': tokens.colors.surface,
    '--color-ink': tokens.colors.ink,
    '--color-muted': tokens.colors.muted,
    '--font-heading': TYPEFACE_STACKS[tokens.typography.heading],
    '--font-body': TYPEFACE_STACKS[tokens.typography.body],
    '--radius': RADIUS_LENGTHS[tokens.radius],
  };
}
