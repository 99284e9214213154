/** What each benchmark module hands to the report: tables, verdicts against targets, and notes. */

export interface Table {
  caption?: string;
  columns: string[];
  rows: string[][];
}

export interface Verdict {
  /** What was compared, e.g. "SNS v2: verifySnsMessageWithKey / crypto.verify". */
  subject: string;
  target: string;
  measured: string;
  meets: boolean;
}

export interface SectionResult {
  id: string;
  title: string;
  /** How it was measured and what each row means, one bullet each. */
  method: string[];
  tables: Table[];
  verdicts: Verdict[];
  notes: string[];
  wallMs: number;
}
