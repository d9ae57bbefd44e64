import { describe, expect, it } from 'vitest';
import { detectDocumentLanguage as detectLanguage } from '../../src/text/detect-language.js';

describe('language detection', () => {
  it('tells Spanish from English by their function words and spelling', () => {
    expect(detectLanguage('We open every weekday from nine in the morning until six in the evening.')).toBe('en');
    expect(detectLanguage('Abrimos todos los días laborables desde las nueve de la mañana hasta las seis de la tarde.')).toBe('es');
    expect(detectLanguage('¿Tienen menú vegano?')).toBe('es');
    expect(detectLanguage('Precios y horarios')).toBe('es');
  });

  it('follows the language of most of the text', () => {
    const mixed = `${'The shop is open on Saturdays and the workshop is closed. '.repeat(5)}Hola, ¿qué tal?`;
    expect(detectLanguage(mixed)).toBe('en');
    expect(detectLanguage(`${'La tienda abre los sábados y el taller está cerrado. '.repeat(5)}Hello there.`)).toBe('es');
  });

  it('answers en when nothing tells them apart, and the same on every call', () => {
    expect(detectLanguage('12345 — 67')).toBe('en');
    expect(detectLanguage('')).toBe('en');
    const text = 'La reserva se confirma por correo electrónico.';
    expect(new Set(Array.from({ length: 5 }, () => detectLanguage(text)))).toEqual(new Set(['es']));
  });
});
