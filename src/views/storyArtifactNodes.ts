/**
 * Children of a story in the Stories view: the artifacts of the story's GitHub issue(s)
 * (research, plan, review, implementation: linked / on disk / missing), so the story DAG and the
 * issue artifacts sit side by side. Built by the GitHub layer; the Stories tree only asks.
 */
import * as vscode from 'vscode';
import type { ArtifactEntry, IssueArtifacts } from '../core/artifacts/issueArtifacts';
import { KIND_LABELS } from '../core/artifacts/protocol';
import type { GitHubWorkspace } from '../services/githubWorkspace';
import { artifactItem, onDiskToken } from './issuesTree';
import type { ExtraStoryChild, StoryNode } from './storyNodes';

export class StoryArtifactNode implements ExtraStoryChild {
  readonly kind = 'extra:storyArtifact';
  constructor(
    readonly parent: StoryNode,
    private readonly github: GitHubWorkspace,
    readonly issue: IssueArtifacts,
    readonly artifact: ArtifactEntry,
  ) {}

  treeItem(): vscode.TreeItem {
    const folder = this.github.forFolder(this.parent.entry.folder);
    const item = folder ? artifactItem(folder, this.issue, this.artifact) : new vscode.TreeItem('');
    item.label = `#${this.issue.number} ${KIND_LABELS[this.artifact.kind]}`;
    item.id = `storyArtifact:${this.parent.entry.uri.toString()}:${this.parent.state.story.index}:${this.issue.number}:${this.artifact.kind}:${this.artifact.status}:${this.artifact.path ?? this.artifact.url ?? ''}`;
    item.contextValue = `storyArtifact ${folder ? onDiskToken(folder, this.artifact) : this.artifact.status}`;
    return item;
  }
}

/** The provider callback the Stories tree calls for a story's extra children. */
export function storyArtifactChildren(github: GitHubWorkspace): (story: StoryNode) => StoryArtifactNode[] {
  return (story) =>
    github
      .artifactsForStory(story.entry.folder.uri, story.id)
      .flatMap((issue) => issue.artifacts.map((a) => new StoryArtifactNode(story, github, issue, a)));
}
