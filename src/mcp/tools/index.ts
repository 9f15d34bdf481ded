import { declareScopes } from '../../resource/protected-resources.ts';
import type { ToolDef } from '../tool.ts';
import { listDigitalProducts, listEvents, listLecturers, listMembershipPlans, listPosts, searchCourses } from './catalog.ts';
import { getSiteInfo, listOrders, listStudents, updateCourse } from './school.ts';
import { getCourse } from './course.ts';
import { getAnalytics } from './analytics.ts';

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
  listStudents,
  listOrders,
  getAnalytics,
  updateCourse,
];

// The MCP protected-resource metadata lists exactly the scopes these tools use.
for (const tool of TOOLS) declareScopes('mcp', tool.scopes);

export const toolByName = (name: unknown): ToolDef | undefined => TOOLS.find((t) => t.name === name);
