import type { Scope } from '../../access/scopes.ts';
import { AREA_LIST } from '../../platform/areas.ts';
import type { ToolDef } from '../tool.ts';
import { getSiteInfo } from './school.ts';
import { getCourse } from './course.ts';
import { getAnalytics } from './analytics.ts';
import { createWebhook, deleteWebhook, listWebhooks } from './webhooks.ts';
import { getMyAccount, listMyEnrollments, listMyLessons, listMyOrders, listMySubscriptions, updateMyAccount } from './account.ts';
import { enrollStudentByEmail, getCourseProgress, getMyProgress, setLessonCompletion, setMyLessonCompletion } from './enrollment.ts';
import { RECORD_TOOLS } from './records.ts';
import { getAppearance, getSchoolSettings, updateAppearance, updateSchoolSettings } from './settings.ts';
import { getSchoolSummary, publishCourse } from './tasks.ts';
import { buildCourse, reorderCurriculum } from './course-builder.ts';
import { deleteFile, listFiles, uploadFile } from './storage.ts';
import { signIn } from './sign-in.ts';
import { listActivity } from './activity.ts';

/**
 * Every MCP tool, in the order tools/list shows them: the catalog, the record
 * tools, then by toolset, and last the way in, which only anonymous callers
 * see: what they can use right away comes first.
 */
export const TOOLS: readonly ToolDef[] = [
  getSiteInfo,
  getCourse,
  ...RECORD_TOOLS,
  getMyAccount,
  getMyProgress,
  setMyLessonCompletion,
  listMyEnrollments,
  listMyLessons,
  listMyOrders,
  listMySubscriptions,
  updateMyAccount,
  buildCourse,
  reorderCurriculum,
  publishCourse,
  enrollStudentByEmail,
  getCourseProgress,
  setLessonCompletion,
  getAnalytics,
  getSchoolSummary,
  getSchoolSettings,
  updateSchoolSettings,
  getAppearance,
  updateAppearance,
  listWebhooks,
  createWebhook,
  deleteWebhook,
  listFiles,
  uploadFile,
  deleteFile,
  listActivity,
  signIn,
];

/** The scopes the tools need or show more with, each once: the MCP protected-resource metadata lists exactly these. */
export const TOOL_SCOPES: readonly Scope[] = [
  ...new Set<Scope>([
    ...TOOLS.flatMap((t) => [...t.scopes, ...(t.optionalScopes ?? [])]),
    // The record tools need the read and write scopes of the areas they reach.
    ...AREA_LIST.flatMap((a) => (a.writeScope ? [a.readScope, a.writeScope] : [a.readScope])),
  ]),
];

export const toolByName = (name: unknown): ToolDef | undefined => TOOLS.find((t) => t.name === name);
