/**
 * Ready-to-paste ways to connect an MCP client to this school, with the
 * server's own /mcp URL filled in: the home page shows them. Each names the
 * client, where the text goes, and the text.
 */
export interface AgentSnippet {
  client: string;
  where: string;
  text: string;
}

export function agentSnippets(mcpUrl: string): AgentSnippet[] {
  return [
    { client: 'Claude Code', where: 'Run in a terminal:', text: `claude mcp add --transport http lyceum ${mcpUrl}` },
    { client: 'VS Code', where: 'In .vscode/mcp.json:', text: JSON.stringify({ servers: { lyceum: { type: 'http', url: mcpUrl } } }, null, 2) },
    { client: 'Cursor', where: 'In .cursor/mcp.json:', text: JSON.stringify({ mcpServers: { lyceum: { url: mcpUrl } } }, null, 2) },
    { client: 'Any client that runs a local command (stdio)', where: 'As the command to run:', text: `npx mcp-remote ${mcpUrl}` },
    {
      client: 'Without a browser on the same machine (SSH, a container, WSL)',
      where: 'As the command to run; it prints a link and a code to open on any device:',
      text: `npx mcp-remote ${mcpUrl} --device-code`,
    },
  ];
}
