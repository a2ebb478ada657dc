/**
 * Errors raised while reading persona files (agents/*.md). Each names the file and the field so
 * the operator can fix the file without reading our code.
 */

/** One problem in one persona file. */
export class PersonaFileError extends Error {
  /** The file as the caller named it (relative paths stay relative). */
  readonly file: string;
  /** The heading the problem is under, as written (or canonical when missing); null for the file. */
  readonly field: string | null;
  /** What is wrong, without the file and field prefix. */
  readonly problem: string;

  constructor(file: string, field: string | null, problem: string) {
    super(field === null ? `${file}: ${problem}` : `${file}: field "${field}": ${problem}`);
    this.name = "PersonaFileError";
    this.file = file;
    this.field = field;
    this.problem = problem;
  }
}

/**
 * Loading the persona directory failed. Start must fail loudly: a bad file is reported, never
 * silently skipped, and every failing file is listed at once so one run shows all the fixes.
 */
export class PersonaLoadError extends Error {
  /** Every per-file problem; empty when the directory itself is the problem. */
  readonly errors: readonly PersonaFileError[];

  constructor(message: string, errors: readonly PersonaFileError[] = []) {
    super(message);
    this.name = "PersonaLoadError";
    this.errors = errors;
  }
}
