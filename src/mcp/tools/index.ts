import type { Scope } from '../../access/scopes.ts';
import type { ToolDef } from '../tool.ts';
import { getSiteInfo } from './school.ts';
import { getCourse } from './course.ts';
import { getAnalytics } from './analytics.ts';
import { createWebhook, deleteWebhook, listWebhooks } from './webhooks.ts';
import { getMyAccount, listMyEnrollments, listMyLessons, listMyOrders, listMySubscriptions, updateMyAccount } from './account.ts';
import { completeLessonForStudent, completeMyLesson, enrollStudentByEmail, getEnrollmentProgress, getMyProgress, uncompleteMyLesson } from './enrollment.ts';
import { RECORD_TOOLS } from './records.ts';
import { getAppearance, getSchoolSettings, updateAppearance, updateSchoolSettings } from './settings.ts';
import { getSchoolSummary, publishCourse } from './tasks.ts';

/** Every MCP tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDef[] = [
  getSiteInfo,
  getCourse,
  // Every area's list_, get_, create_, update_ and delete_ tools, but get_course: the one above also shows the curriculum.
  ...RECORD_TOOLS.filter((t) => t.name !== getCourse.name),
  getSchoolSettings,
  updateSchoolSettings,
  getAppearance,
  updateAppearance,
  publishCourse,
  getSchoolSummary,
  getMyAccount,
  listMyEnrollments,
  listMyLessons,
  getMyProgress,
  listMyOrders,
  listMySubscriptions,
  updateMyAccount,
  getAnalytics,
  enrollStudentByEmail,
  getEnrollmentProgress,
  completeLessonForStudent,
  completeMyLesson,
  uncompleteMyLesson,
  listWebhooks,
  createWebhook,
  deleteWebhook,
];

/** The scopes the tools need or show more with, each once: the MCP protected-resource metadata lists exactly these. */
export const TOOL_SCOPES: readonly Scope[] = [...new Set(TOOLS.flatMap((t) => [...t.scopes, ...(t.optionalScopes ?? [])]))];

export const toolByName = (name: unknown): ToolDef | undefined => TOOLS.find((t) => t.name === name);
