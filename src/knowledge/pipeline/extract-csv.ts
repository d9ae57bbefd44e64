/**
 * A CSV table as text: one paragraph per row, each cell named by its column
 * (`name: Basic; price: 10 €`), so that every row reads as a fact on its own and the
 * chunker can split between rows. Parsed with papaparse.
 */
export async function extractCsv(text: string): Promise<string> {
  const { default: Papa } = await import('papaparse');
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' });
  const rows = parsed.data.map((row) =>
    row.map((cell) =>
      String(cell ?? '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
  const [header, ...body] = rows;
  if (!header) return '';
  if (body.length === 0) return header.filter(Boolean).join('; ');
  const names = header.map((name, i) => name || `column ${i + 1}`);
  return body
    .map((row) =>
      row
        .map((cell, i) => (cell ? `${names[i] ?? `column ${i + 1}`}: ${cell}` : ''))
        .filter(Boolean)
        .join('; '),
    )
    .filter(Boolean)
    .join('\n\n');
}
