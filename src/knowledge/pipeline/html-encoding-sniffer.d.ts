// `html-encoding-sniffer` ships no types; extraction uses this much of it (D-1189).
declare module 'html-encoding-sniffer' {
  /**
   * The HTML Standard's encoding sniffing: a byte order mark, else the transport label,
   * else the `<meta>` prescan of the first 1024 bytes, else `defaultEncoding`. Answers
   * a canonical encoding name (`UTF-8`, `windows-1251`).
   */
  export default function htmlEncodingSniffer(
    bytes: Uint8Array,
    options?: { xml?: boolean; transportLayerEncodingLabel?: string | undefined; defaultEncoding?: string },
  ): string;
}
