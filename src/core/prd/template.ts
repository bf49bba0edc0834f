/** The prd.json a user gets from "Create prd.json": small, valid, and showing blockedBy. */
export function prdTemplate(projectName: string): string {
  const slug = projectName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'my-feature';
  const prd = {
    projectName,
    branchName: `ralph/${slug}`,
    description: 'Describe the feature these stories build.',
    userStories: [
      {
        id: 'US-001',
        title: 'Add the data model',
        priority: 1,
        passes: false,
        description: 'As a developer, I want the data model in place so that later stories can build on it.',
        acceptanceCriteria: ['Schema and migration exist', 'Typecheck passes'],
        notes: '',
      },
      {
        id: 'US-002',
        title: 'Expose the API endpoint',
        priority: 2,
        passes: false,
        description: 'As a client, I want an endpoint that returns the data.',
        acceptanceCriteria: ['GET returns 200 with the data', 'Tests cover the endpoint'],
        blockedBy: ['US-001'],
        notes: '',
      },
      {
        id: 'US-003',
        title: 'Show the data in the UI',
        priority: 3,
        passes: false,
        description: 'As a user, I want to see the data on the dashboard.',
        acceptanceCriteria: ['The dashboard lists the data', 'Verified in the browser'],
        blockedBy: ['US-002'],
        notes: '',
      },
    ],
  };
  return `${JSON.stringify(prd, null, 2)}\n`;
}
