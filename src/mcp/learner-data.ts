import type { AreaName } from '../platform/areas.ts';
import { WITHHELD, type Pseudonyms } from './pseudonyms.ts';

type Rec = Record<string, unknown>;

/** How one area's records show learners while they are pseudonymized. */
export interface LearnerRule {
  /** The fields that identify a learner: replaced in answers, never searched or filtered on. */
  fields: readonly string[];
  /** The record with every such field replaced; fields the record does not carry stay absent. */
  apply(record: Rec, p: Pseudonyms): Rec;
}

/** Sets the fields the record carries, leaving out the ones a projection left out. */
function replaced(record: Rec, values: Rec): Rec {
  const out = { ...record };
  for (const [k, v] of Object.entries(values)) if (k in out) out[k] = v;
  return out;
}

const present = (v: unknown) => v !== null && v !== undefined && v !== '';

/** A form's answers: numbers, booleans and empty answers stay (counts and ratings); any text is withheld. */
function withheldAnswers(data: unknown): unknown {
  // A row read straight from the store holds the JSON text; a record holds the object.
  const answers = typeof data === 'string' ? safeParse(data) : data;
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) return typeof data === 'string' ? '{}' : {};
  const out = Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, v === null || typeof v === 'number' || typeof v === 'boolean' ? v : WITHHELD]));
  return typeof data === 'string' ? JSON.stringify(out) : out;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Where the platform's records hold a learner's personal data (src/platform/areas.ts).
 * Staff are not learners: lecturers, team members and post authors are shown
 * as they are. Enrollments, orders and subscriptions name a student by id
 * only, and ids stay real so an agent can still act on a record.
 */
export const LEARNER_RULES: Partial<Record<AreaName, LearnerRule>> = {
  students: {
    fields: ['name', 'email', 'notes'],
    apply: (r, p) => replaced(r, { ...p.student(String(r.id)), notes: present(r.notes) ? WITHHELD : r.notes }),
  },
  event_attendees: {
    fields: ['name', 'email'],
    // An attendee with a student record is shown as that student; anyone else by their address.
    apply: (r, p) => replaced(r, { ...(present(r.student_id) ? p.student(String(r.student_id)) : p.guest(String(r.email ?? r.id))) }),
  },
  comments: {
    fields: ['author_name'],
    // A comment by someone without a student record keeps its author's name, as posts keep theirs.
    apply: (r, p) => (present(r.student_id) ? replaced(r, { author_name: p.student(String(r.student_id)).name }) : r),
  },
  form_submissions: {
    fields: ['data'],
    apply: (r) => replaced(r, { data: withheldAnswers(r.data) }),
  },
};

export const learnerRule = (areaName: string): LearnerRule | undefined => LEARNER_RULES[areaName as AreaName];
