// The transcript: user messages, Mara's answers growing delta by delta, tool calls as boxes of their
// own, and how each turn ended. Fed by conversation events, whether from history or live.
import {BuildLogs} from './buildLog.js';
import {h} from './dom.js';
import {turnFailure} from './words.js';

export class Transcript {
  constructor(list, changed, buildLogs = null) {
    this.list = list;
    this.buildLogs = buildLogs; // run_build cards show their build's log (null: plain cards)
    this.changed = changed;
    this.messagesByClientId = new Map();
    this.messagesById = new Map();
    this.turns = new Map();
    this.tools = new Map();
    this.waiting = new Set(); // messages accepted whose turn has not ended
    this.runningTurn = null;
    this.sink = list; // where new messages and turns go: the list, or an earlier page being built
    this.earlier = false;
  }

  /**
   * Builds an earlier page of turns into {@code fragment} (the caller puts it above the others). Those
   * turns have all ended and their messages were answered, so the page changes nothing of what runs now.
   */
  buildEarlier(fragment, build) {
    this.sink = fragment;
    this.earlier = true;
    try {
      build();
    } finally {
      this.sink = this.list;
      this.earlier = false;
    }
  }

  /** Drops what it knew of messages and turns no longer on the page (an earlier page was taken out). */
  forgetDetached() {
    for (const map of [this.messagesByClientId, this.messagesById, this.turns, this.tools]) {
      for (const [key, value] of map) if (!value.element.isConnected) map.delete(key);
    }
  }

  busy() {
    return this.runningTurn !== null || this.waiting.size > 0;
  }

  /** Shows a message the moment it is sent; the server's message.accepted confirms it. */
  pendingMessage(clientMessageId, text) {
    const message = this.messageElement(text, 'Sending…');
    this.messagesByClientId.set(clientMessageId, message);
    this.list.append(message.element);
    this.changed();
    return message;
  }

  /** Applies one event; true when it ended a turn. */
  apply(type, data) {
    switch (type) {
      case 'message.accepted': this.accepted(data); break;
      case 'turn.started':
        this.turn(data.turnId, data.messageId);
        if (!this.earlier) this.runningTurn = data.turnId;
        break;
      case 'text.delta': this.turn(data.turnId, data.messageId).appendText(String(data.text ?? '')); break;
      case 'tool.started': this.toolStarted(data); break;
      case 'tool.completed': this.toolCompleted(data); break;
      // A compacted turn's blocks, each whole; one replaces what a client had of that block.
      case 'text.block': this.turn(data.turnId, data.messageId).foldedText(data.index, String(data.text ?? '')); break;
      case 'tool.block': this.foldedTool(data); break;
      case 'turn.completed':
      case 'turn.failed':
        this.ended(type, data);
        this.changed();
        return true;
      default: return false;
    }
    this.changed();
    return false;
  }

  accepted(data) {
    const messageId = data.messageId || data.id;
    let message = data.clientMessageId ? this.messagesByClientId.get(data.clientMessageId) : undefined;
    if (!message && messageId) message = this.messagesById.get(messageId);
    if (!message) {
      message = this.messageElement(String(data.text ?? ''), '');
      this.sink.append(message.element);
    }
    message.setState(this.earlier ? '' : 'Waiting for Mara…');
    message.element.dataset.state = 'accepted';
    if (messageId) {
      this.messagesById.set(messageId, message);
      if (!this.earlier) this.waiting.add(messageId);
    }
  }

  turn(turnId, messageId) {
    let turn = this.turns.get(turnId);
    if (!turn) {
      turn = new Turn(turnId);
      this.turns.set(turnId, turn);
      this.sink.append(turn.element);
      const message = messageId && this.messagesById.get(messageId);
      if (message) message.setState('');
    }
    return turn;
  }

  toolStarted(data) {
    const tool = this.newTool(data, !this.earlier);
    this.tools.set(data.toolUseId, tool);
    this.turn(data.turnId, data.messageId).addTool(tool);
  }

  toolCompleted(data) {
    let tool = this.tools.get(data.toolUseId);
    if (!tool) {
      tool = this.newTool(data, false);
      this.tools.set(data.toolUseId, tool);
      this.turn(data.turnId, data.messageId).addTool(tool);
    }
    // As the log's compaction counts blocks: text after a tool's end is a new block.
    this.turn(data.turnId, data.messageId).openText = null;
    tool.complete(data);
  }

  foldedTool(data) {
    const turn = this.turn(data.turnId, data.messageId);
    const existing = turn.blocks[data.index];
    const tool = existing instanceof Tool ? existing : this.newTool(data, false);
    if (!(existing instanceof Tool)) turn.placeBlock(data.index, tool, tool.element);
    turn.openText = null;
    this.tools.set(data.toolUseId, tool);
    if (data.completed) tool.complete(data);
  }

  newTool(data, live) {
    const tool = new Tool(data);
    if (this.buildLogs && BuildLogs.isBuildTool(data.name)) tool.buildLog = this.buildLogs.attach(tool.element, live);
    return tool;
  }

  ended(type, data) {
    if (data.messageId) {
      this.waiting.delete(data.messageId);
      const message = this.messagesById.get(data.messageId);
      if (message) message.setState('');
    }
    if (!data.turnId && data.messageId) this.waiting.delete(data.messageId);
    if (!this.earlier && (this.runningTurn === data.turnId || !data.turnId)) this.runningTurn = null;
    // A failure before any turn started (e.g. a message the worker refused) still gets a place to show.
    const turn = data.turnId ? this.turn(data.turnId, data.messageId) : this.orphanTurn();
    if (type === 'turn.completed') turn.complete(data);
    else turn.fail(turnFailure(data));
  }

  orphanTurn() {
    const turn = new Turn('');
    this.sink.append(turn.element);
    return turn;
  }

  messageElement(text, state) {
    const stateElement = h('span', {class: 'message-state muted small'}, state);
    const element = h('li', {class: 'message user', dataset: {state: 'pending'}},
      h('span', {class: 'who'}, 'You'),
      h('p', {class: 'message-text'}, text),
      stateElement);
    return {
      element,
      setState: (words) => { stateElement.textContent = words; },
      fail: (words) => {
        element.dataset.state = 'failed';
        stateElement.textContent = `Not sent: ${words}`;
      },
    };
  }
}

class Turn {
  constructor(turnId) {
    this.body = h('div', {class: 'answer-body'});
    this.status = h('p', {class: 'turn-status muted small', role: 'status'}, 'Mara is answering…');
    this.element = h('li', {class: 'message assistant', dataset: {turnId, state: 'running'}},
      h('span', {class: 'who'}, 'Mara'), this.body, this.status);
    // The turn's blocks in order (text paragraphs and tools), numbered as the event log numbers them.
    this.blocks = [];
    this.openText = null;
  }

  /** A delta touches only its paragraph's one text node. */
  appendText(text) {
    if (!this.openText) {
      this.openText = new TextBlock();
      this.blocks.push(this.openText);
      this.body.append(this.openText.element);
    }
    this.openText.node.appendData(text);
  }

  addTool(tool) {
    this.blocks.push(tool);
    this.body.append(tool.element);
    this.openText = null; // text after a tool call starts a new paragraph
  }

  /** A folded text block: the whole text of block {@code index}, replacing the part this view had. */
  foldedText(index, text) {
    const existing = this.blocks[index];
    if (existing instanceof TextBlock) {
      existing.node.data = text;
    } else {
      const block = new TextBlock();
      block.node.data = text;
      this.placeBlock(index, block, block.element);
    }
    this.openText = null;
  }

  placeBlock(index, block, element) {
    const existing = this.blocks[index];
    if (existing) {
      existing.element.replaceWith(element);
      this.blocks[index] = block;
    } else {
      this.blocks.push(block);
      this.body.append(element);
    }
  }

  complete(data) {
    this.element.dataset.state = 'completed';
    const usage = data.usage || {};
    const tokens = usage.outputTokens !== undefined
      ? ` · ${usage.inputTokens ?? 0} tokens in, ${usage.outputTokens} out` : '';
    this.status.textContent = `Done${data.stopReason && data.stopReason !== 'end_turn' ? ` (${data.stopReason})` : ''}${tokens}`;
  }

  fail(failure) {
    this.element.dataset.state = 'failed';
    this.element.dataset.failure = failure.kind;
    this.status.replaceChildren(
      h('strong', {class: 'failure-headline'}, failure.headline), ' ',
      h('span', {class: 'failure-detail'}, failure.detail || ''));
    this.status.className = `turn-status failure failure-${failure.kind}`;
    this.status.setAttribute('role', 'alert');
  }
}

class TextBlock {
  constructor() {
    this.node = document.createTextNode('');
    this.element = h('p', {class: 'answer-text'}, this.node);
  }
}

class Tool {
  constructor(data) {
    this.state = h('span', {class: 'tool-state'}, 'running…');
    this.output = h('pre', {class: 'tool-output', hidden: true});
    this.element = h('div', {class: 'tool', dataset: {state: 'running'}},
      h('div', {class: 'tool-head'},
        h('span', {class: 'tool-label'}, 'Tool'), ' ',
        h('code', {class: 'tool-name'}, String(data.name ?? 'tool')), ' ', this.state),
      data.input !== undefined ? h('pre', {class: 'tool-input'}, compact(data.input)) : null,
      this.output);
  }

  complete(data) {
    if (this.buildLog && this.element.dataset.state === 'running') this.buildLog.completed(data.output);
    this.element.dataset.state = data.isError ? 'error' : 'done';
    this.state.textContent = data.isError ? 'failed' : 'done';
    if (data.output !== undefined) {
      this.output.textContent = compact(data.output);
      this.output.hidden = false;
    }
  }
}

function compact(value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
