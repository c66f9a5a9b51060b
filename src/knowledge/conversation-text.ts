/**
 * A conversation as the text a source stores and serves: one block per turn, the user's words
 * after their name and the assistant's after "Assistant", blocks separated by a blank line. Each
 * turn is one unit of chunking; its range points into this text.
 */
import type { Section, TextRange } from './chunk-packing.js';

export interface ConversationTurn {
  readonly user: string;
  readonly assistant: string;
}

export const DEFAULT_USER_NAME = 'User';
export const ASSISTANT_NAME = 'Assistant';

export interface RenderedConversation {
  readonly text: string;
  readonly turns: readonly TextRange[];
}

export function renderConversation(turns: readonly ConversationTurn[], userName: string = DEFAULT_USER_NAME): RenderedConversation {
  let text = '';
  const ranges: TextRange[] = [];
  turns.forEach((turn, index) => {
    if (index > 0) text += '\n\n';
    const start = text.length;
    text += `${userName}: ${turn.user}\n${ASSISTANT_NAME}: ${turn.assistant}`;
    ranges.push({ start, end: text.length });
  });
  return { text, turns: ranges };
}

/** One section: the conversation's turns, under its title. */
export function conversationSections(rendered: RenderedConversation, title: string | undefined): Section[] {
  return rendered.turns.length === 0 ? [] : [{ path: title === undefined ? [] : [title], units: rendered.turns }];
}
