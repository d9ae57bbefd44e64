import { codeLines } from '../text/code-fences.js';
import type { Language } from '../text/language.js';

/**
 * Machine translation of page texts. The emulator's default is deterministic and
 * offline; pass your own (`createEmulator({ translator })`) to call a real service.
 */
export interface Translator {
  /** One translation per text, in order. Texts may be Markdown; keep its structure. */
  translate(texts: string[], from: Language, to: Language): Promise<string[]>;
}

// Markdown that opens a line (headings, quotes, list items): kept in front of the tag.
const LINE_PREFIX = /^(\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)*)(.*)$/;

/**
 * The default translator (decisions, D-042): marks every line of text with the target language
 * (`Hello` to `es` is `[es] Hello`), leaving Markdown line syntax and fenced code
 * intact. The same input always gives the same output.
 */
export class TaggingTranslator implements Translator {
  async translate(texts: string[], _from: Language, to: Language): Promise<string[]> {
    return texts.map((text) => this.#translate(text, to));
  }

  #translate(text: string, to: Language): string {
    const lines = text.split('\n');
    // Fences and the code between them as CommonMark reads them (a ```` block may hold ``` lines).
    const code = codeLines(lines);
    return lines
      .map((line, i) => {
        if (code[i] || line.trim() === '') return line;
        const [, prefix = '', rest = ''] = LINE_PREFIX.exec(line) ?? [];
        return rest.trim() === '' ? line : `${prefix}[${to}] ${rest}`;
      })
      .join('\n');
  }
}
