// The types of orbitc's JavaScript API (index.mjs): what hosts/wasm/orbit-api.js returns,
// which is what `orbitc check --format json` and `orbitc fmt` print (docs/cli.md).

/** A position as the Language Server Protocol counts it: 0-based line, UTF-16 units. */
export interface Position {
  line: number;
  character: number;
}

/** Where a diagnostic, a label or an edit is: 1-based lines and columns (columns in
 * characters), the LSP range, and the bytes of the file. */
export interface Location {
  file: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  range: { start: Position; end: Position };
  byte_start: number;
  byte_end: number;
}

export interface Label extends Location {
  message: string;
}

export interface Edit extends Location {
  replacement: string;
}

export interface Fix {
  message: string;
  applicability: 'machine-applicable' | 'maybe-incorrect';
  edits: Edit[];
}

/** One diagnostic: one line of `orbitc check --format json`. */
export interface Diagnostic extends Location {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  label: string;
  labels: Label[];
  notes: string[];
  help: string[];
  fixes: Fix[];
}

/** The diagnostics of `source`, checked as the file `name` (default `playground.orbit`)
 * alone, as `orbitc check --format json NAME` prints them. Throws a RangeError when
 * `name` holds a NUL character. */
export function check(source: string, name?: string): Diagnostic[];

/** The same, as the exact text `orbitc check --format json` prints: one JSON object a line. */
export function checkText(source: string, name?: string): string;

/** `source` formatted as `orbitc fmt -` formats it; not ok when it has lexical or syntax errors. */
export function format(source: string): { ok: true; text: string } | { ok: false; message: string };

/** `source` with the machine-applicable fixes applied, as `orbitc fix -`; `fixed`: how many. */
export function fix(source: string): { text: string; fixed: number };
