import type { Scope } from '../../access/scopes.ts';
import type { ToolDef } from '../tool.ts';
import { listDigitalProducts, listEvents, listLecturers, listMembershipPlans, listPosts, searchCourses } from './catalog.ts';
import { getSiteInfo, listOrders, listStudents, updateCourse } from './school.ts';
import { getCourse } from './course.ts';
import { getAnalytics } from './analytics.ts';
import { getMyAccount, listMyEnrollments, listMyLessons, listMyOrders, listMySubscriptions, updateMyAccount } from './account.ts';

/** Every MCP tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDef[] = [
  getSiteInfo,
  searchCourses,
  getCourse,
  listLecturers,
  listMembershipPlans,
  listDigitalProducts,
  listEvents,
  listPosts,
  getMyAccount,
  listMyEnrollments,
  listMyLessons,
  listMyOrders,
  listMySubscriptions,
  updateMyAccount,
  listStudents,
  listOrders,
  getAnalytics,
  updateCourse,
];

/** The scopes the tools use, each once: the MCP protected-resource metadata lists exactly these. */
export const TOOL_SCOPES: readonly Scope[] = [...new Set(TOOLS.flatMap((t) => t.scopes))];

export const toolByName = (name: unknown): ToolDef | undefined => TOOLS.find((t) => t.name === name);
