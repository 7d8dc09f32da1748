/**
 * The characters no text a person reads may carry when it came from outside (the service, a file):
 * written here from the code points, apart from the provider's own list, so that a test judges the
 * cleaner rather than repeats it. C0 but line feed and tab, DEL, C1, the line and paragraph
 * separators, and the bidirectional marks, embeddings, overrides and isolates.
 */
export function isUnsafe(code: number): boolean {
  return (
    (code <= 0x1f && code !== 0x0a && code !== 0x09) ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Every unsafe character of `text`, as `U+001B` (line feed and tab too when `inLine`), each once. */
export function unsafeCharsIn(text: string, { inLine = false } = {}): string[] {
  const found = new Set<string>();
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (isUnsafe(code) || (inLine && (code === 0x0a || code === 0x09))) {
      found.add(`U+${code.toString(16).toUpperCase().padStart(4, "0")}`);
    }
  }
  return [...found];
}

/**
 * A text that tries everything at once: a window title (OSC ended by BEL), a screen clear and a
 * colour (CSI, and as C1), a hyperlink, a right-to-left override and isolate, a line separator, DEL
 * and NUL, and a carriage return and a line feed that would start a forged `error:` line.
 */
export function controlLaden(word: string): string {
  return (
    `${word}\u001b]0;owned\u0007\u001b[2J\u001b[1;32mAll checks passed\u001b[0m\u009b2J\u009d0;t\u009c` +
    `\u001b]8;;https://evil.example\u001b\\x\u202egpj.exe\u2066\u200f\u061c\u2028\u0000\u007f\r\nerror: forged`
  );
}
