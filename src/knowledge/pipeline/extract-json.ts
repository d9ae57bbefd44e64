type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Leaf {
  path: string;
  group: string;
  text: string;
}

function walk(value: Json, path: string, group: string | undefined, depth: number, out: Leaf[]): void {
  if (value === null || typeof value !== 'object') {
    const text = String(value).replace(/\s+/g, ' ').trim();
    // Top-level scalars read together; anything nested reads with its list item or section.
    if (text) out.push({ path: path || 'value', group: group ?? (depth > 1 ? path.split(/[.[]/)[0]! : ''), text });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const p = `${path}[${i}]`;
      walk(item, p, group ?? p, depth + 1, out);
    });
    return;
  }
  for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key, group, depth + 1, out);
}

/**
 * A JSON document as text: one `path: value` line per leaf (`faq[0].question: ...`);
 * the leaves of one list item, or of one top-level section, form one paragraph.
 */
export function extractJson(text: string): string {
  const leaves: Leaf[] = [];
  walk(JSON.parse(text) as Json, '', undefined, 0, leaves);
  const paragraphs: string[][] = [];
  let current: string | undefined;
  for (const leaf of leaves) {
    if (leaf.group !== current) {
      paragraphs.push([]);
      current = leaf.group;
    }
    paragraphs[paragraphs.length - 1]!.push(`${leaf.path}: ${leaf.text}`);
  }
  return paragraphs.map((p) => p.join('\n')).join('\n\n');
}
