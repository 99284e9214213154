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

/** A measured comparison reported without a verdict (no target applies to it); listed in the Summary. */
export interface Informational {
  subject: string;
  measured: string;
  /** What to read it against, e.g. a structural bound. */
  note?: string;
}

export interface SectionResult {
  id: string;
  title: string;
  /** How it was measured and what each row means, one bullet each. */
  method: string[];
  tables: Table[];
  verdicts: Verdict[];
  /** Rows measured and shown for context, with no target and no verdict. */
  informational?: Informational[];
  notes: string[];
  wallMs: number;
}
