import { describe, expect, it } from 'vitest';
import { keyTerms, summarize, summarizeClaim } from '../../src/knowledge/pipeline/summary.js';

describe('the summary index card', () => {
  it('is one English line naming the kind, the title and what the document covers', () => {
    const text =
      '# Returns\n\nRefunds are paid within ten days. Refunds need the receipt.\n\n## Exchanges\n\nExchanges are free within thirty days; exchanges need the receipt.';
    const summary = summarize({ kind: 'upload', format: 'markdown', title: 'Store policy', lang: 'en', text });
    expect(summary).toBe('Document "Store policy" covering exchanges, returns and refunds.');
    expect(summary).not.toContain('\n');
  });

  it('names a Spanish source in English, with the Spanish terms it translated', () => {
    const text =
      '## Envíos\n\nLos envíos tardan dos días. El envío es gratuito.\n\n## Devoluciones\n\nLas devoluciones son gratuitas durante treinta días.\n\n## Pagos\n\nAceptamos pagos con tarjeta.';
    expect(summarize({ kind: 'url', format: 'html', title: 'Ayuda', lang: 'es', text })).toBe(
      'Web page "Ayuda" in Spanish covering shipping (envíos), returns (devoluciones) and payments (pagos).',
    );
  });

  it('never shows an untranslated Spanish word: a Spanish card names only what it can say in English', () => {
    const text = 'Cultivamos y compramos café. Los agricultores cultivan, cosechan y secan el grano al sol.';
    expect(summarize({ kind: 'upload', format: 'markdown', title: 'Orígenes', lang: 'es', text })).toBe(
      'Document "Orígenes" in Spanish covering coffee (café) and beans (grano).',
    );
    expect(summarize({ kind: 'upload', format: 'markdown', title: 'Hola', lang: 'es', text: 'Cultivamos y cosechamos.' })).toBe('Document "Hola" in Spanish.');
  });

  it('never lists days, months, currencies, stopwords, numbers or words of the title', () => {
    const terms = keyTerms('Monday Monday euros euros 2026 2026 the the the bikes bikes bikes repairs', 'Bikes', 5);
    expect(terms).toEqual(['repairs']);
  });

  it('quotes long titles shortened, and claims by what they state', () => {
    const summary = summarize({ kind: 'upload', format: 'pdf', title: `A "long" ${'very '.repeat(30)}title`, lang: 'en', text: 'warranty terms' });
    expect(summary).toMatch(/^PDF document "A 'long' very .*…" covering warranty and terms\.$/);
    expect(summarizeClaim('We deliver in 24 hours.')).toBe('Claim stating "We deliver in 24 hours.".');
  });
});
